// Routes (Management API): the settings of services this server does not run (Realtime, Storage):
// validated against the document, stored per project and answered back; nothing else happens
// (there is no Realtime or Storage server here), which the README says.
import { ApiError } from "../http/apiError";
import { realtimeConfig, ServiceSettingsStore, storageConfig } from "../settings/serviceSettingsStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";

export const serviceSettingsArea: ApiArea = {
  "v1-get-realtime-config": async (call) => {
    const project = await requireProject(call);
    return ok(await realtimeConfig(call.services.platform, project.ref));
  },

  "v1-update-realtime-config": async (call) => {
    const project = await requireProject(call);
    await call.services.stores.serviceSettings.change(project.ref, "realtime", call.body);
    return ok(undefined, 204);
  },

  // The document's 404 ("Tenant not found") is the hosted answer for a project without a
  // Realtime tenant, which every project here is: nothing is shut down, and the answer says so.
  "v1-shutdown-realtime": async (call) => {
    await requireProject(call);
    throw new ApiError(404, "Realtime is not a service this server runs: the project has no realtime connections to shut down");
  },

  "v1-get-storage-config": async (call) => {
    const project = await requireProject(call);
    return ok(await storageConfig(call.services.platform, project.ref));
  },

  "v1-update-storage-config": async (call) => {
    const project = await requireProject(call);
    const change = call.body;
    const current = await storageConfig(call.services.platform, project.ref);
    // A partial `features` object changes only the features it names.
    const merged = change.features ? { ...change, features: { ...current.features, ...change.features } } : change;
    await call.services.stores.serviceSettings.change(project.ref, "storage", merged);
    return ok(undefined);
  },

  "v1-list-all-buckets": async (call) => {
    await requireProject(call);
    throw new ApiError(400, "This server runs no Storage service, so a project has no buckets; its storage settings are recorded only (GET/PATCH .../config/storage)");
  },
};

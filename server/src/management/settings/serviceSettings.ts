// Routes (Management API): the settings of services this server does not run (Realtime, Storage):
// validated against the document, stored per project and answered back; nothing else happens
// (there is no Realtime or Storage server here), which the README says.
import { ApiError } from "../http/apiError";
import { ServiceSettingsStore } from "./serviceSettingsStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";

const realtimeDefaults = {
  private_only: false,
  connection_pool: 2,
  max_concurrent_users: 200,
  max_events_per_second: 100,
  max_bytes_per_second: 100_000,
  max_channels_per_client: 100,
  max_joins_per_second: 100,
  max_presence_events_per_second: 100,
  max_payload_size_in_kb: 100,
  suspend: false,
  presence_enabled: true,
};

const storageDefaults = {
  fileSizeLimit: 52_428_800,
  features: {
    imageTransformation: { enabled: false },
    s3Protocol: { enabled: false },
    icebergCatalog: { enabled: false, maxNamespaces: 0, maxTables: 0, maxCatalogs: 0 },
    vectorBuckets: { enabled: false, maxBuckets: 0, maxIndexes: 0 },
  },
  capabilities: { list_v2: false, iceberg_catalog: false },
  external: { upstreamTarget: "main" },
  migrationVersion: "none",
  databasePoolMode: "none",
};

export const serviceSettingsArea: ApiArea = {
  "v1-get-realtime-config": async (call) => {
    const project = await requireProject(call);
    return ok(await new ServiceSettingsStore(call.services.platform).get(project.ref, "realtime", realtimeDefaults));
  },

  "v1-update-realtime-config": async (call) => {
    const project = await requireProject(call);
    await new ServiceSettingsStore(call.services.platform).change(project.ref, "realtime", call.body as object);
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
    return ok(await new ServiceSettingsStore(call.services.platform).get(project.ref, "storage", storageDefaults));
  },

  "v1-update-storage-config": async (call) => {
    const project = await requireProject(call);
    const change = call.body as { features?: Record<string, unknown> };
    const current = await new ServiceSettingsStore(call.services.platform).get(project.ref, "storage", storageDefaults);
    // A partial `features` object changes only the features it names.
    const merged = change.features ? { ...change, features: { ...current.features, ...change.features } } : change;
    await new ServiceSettingsStore(call.services.platform).change(project.ref, "storage", merged);
    return ok(undefined);
  },

  "v1-list-all-buckets": async (call) => {
    await requireProject(call);
    throw new ApiError(400, "This server runs no Storage service, so a project has no buckets; its storage settings are recorded only (GET/PATCH .../config/storage)");
  },
};

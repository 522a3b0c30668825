// Routes (Management API): pausing and restoring a project. Paused, its database refuses
// connections and its data API answers 503; restore opens it again at once, so there is never a
// restore in progress to cancel, and the only version to restore to is the one it runs.
import { ApiError } from "../http/apiError";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";
import { postgresEngine } from "./shapes";

export const projectLifecycleArea: ApiArea = {
  "v1-pause-a-project": async (call) => {
    const project = await requireProject(call);
    await call.services.provisioner.pause(project.ref);
    return ok({});
  },

  "v1-restore-a-project": async (call) => {
    const project = await requireProject(call);
    const branch = await call.services.branches.byIdOrRef(project.ref);
    if (branch?.deletion_scheduled_at) {
      throw new ApiError(400, `Project ${project.ref} is a branch scheduled for deletion at ${branch.deletion_scheduled_at}: restore it with POST /v1/branches/${project.ref}/restore`);
    }
    await call.services.provisioner.restore(project.ref);
    return ok({});
  },

  "v1-list-available-restore-versions": async (call) => {
    const project = await requireProject(call);
    const version = call.services.servers.get(project.server).version;
    return ok({
      available_versions: project.status === "INACTIVE" ? [{ version, release_channel: "ga" as const, postgres_engine: postgresEngine(version) }] : [],
    });
  },

  "v1-cancel-a-project-restoration": async (call) => {
    const project = await requireProject(call);
    throw new ApiError(400, `Project ${project.ref} has no restore in progress: a restore here completes before it answers`);
  },
};

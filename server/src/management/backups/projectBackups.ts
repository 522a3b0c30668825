// Routes (Management API): a project's logical backups, restore points, restores and schedule.
// There are no physical backups or WAL archives here, so point-in-time recovery is refused with
// the reason rather than pretended.
import { ApiError } from "../http/apiError";
import type { BackupEntry } from "./backups";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Schema } from "../http/operation";

function restorePointShape(entry: BackupEntry): Schema<"V1RestorePointResponse"> {
  const status = entry.status === "COMPLETED" ? "AVAILABLE" : entry.status;
  return { name: entry.name!, status, completed_on: entry.completed_at };
}

export const projectBackupsArea: ApiArea = {
  "v1-list-all-backups": async (call) => {
    const project = await requireProject(call);
    const backups = await call.services.backups.list(project.ref);
    return ok({
      region: project.region,
      walg_enabled: false,
      pitr_enabled: false,
      backups: backups.map((b) => ({ id: b.id, is_physical_backup: false, status: b.status, inserted_at: b.inserted_at })),
      physical_backup_data: {},
    });
  },

  "v1-restore-physical-backup": async (call) => {
    const project = await requireProject(call);
    const { id } = call.body;
    // The current state is kept first, so a restore can itself be undone.
    await call.services.backups.take(project, "on_demand");
    await call.services.backups.restore(project, id);
    return ok({}, 201);
  },

  "v1-create-restore-point": async (call) => {
    const project = await requireProject(call);
    const { name } = call.body;
    const entry = await call.services.backups.take(project, "restore_point", name);
    if (entry.status === "FAILED") throw new ApiError(500, `The restore point ${name} could not be taken`);
    return ok(restorePointShape(entry), 201);
  },

  "v1-get-restore-point": async (call) => {
    const project = await requireProject(call);
    const name = call.query.name;
    const entry = await call.services.backups.restorePoint(project.ref, name);
    if (!entry) throw new ApiError(404, name ? `Project ${project.ref} has no restore point named ${name}` : `Project ${project.ref} has no restore point`);
    return ok(restorePointShape(entry));
  },

  "v1-undo": async (call) => {
    const project = await requireProject(call);
    const { name } = call.body;
    const entry = await call.services.backups.restorePoint(project.ref, name);
    if (!entry) throw new ApiError(400, `Project ${project.ref} has no restore point named ${name}`);
    await call.services.backups.restore(project, entry.id);
    return ok({}, 201);
  },

  "v1-restore-pitr-backup": async (call) => {
    const project = await requireProject(call);
    throw new ApiError(
      400,
      `Point-in-time recovery is not available for project ${project.ref}: this server keeps logical backups (pg_dump) only, with no WAL archive to replay; restore one of GET /v1/projects/${project.ref}/database/backups instead`,
    );
  },

  "v1-get-backup-schedule": async (call) => {
    const project = await requireProject(call);
    return ok(await call.services.backups.schedule(project));
  },

  "v1-update-backup-schedule": async (call) => {
    const project = await requireProject(call);
    const { schedule_for } = call.body;
    return ok(await call.services.backups.setSchedule(project, schedule_for));
  },
};

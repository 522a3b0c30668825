// Routes (Management API): project upgrades. What this server can upgrade is the project's
// pg_graphql extension (to the version installed on its server); a PostgreSQL major upgrade
// replaces the whole server's binaries and data directory, so it is reported as not available.
import { ApiError } from "../http/apiError";
import { extensionVersions, upgradeExtension } from "./extensionUpgrade";
import { UpgradeStore } from "./upgradeStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Caller } from "../http/operation";
import { postgresEngine } from "../projects/shapes";
import type { ProjectRecord } from "../tenants/projectStore";

const majorUpgradeRefusal = (current: string, target: string) =>
  `A PostgreSQL major upgrade (${current} → ${target}) is not available here: it replaces the PostgreSQL binaries and data directory of the whole server (pg_upgrade or a dump and restore), which its operator does; this API upgrades the project's pg_graphql extension (target_version "${current}")`;

function versionsOf(call: Caller, project: ProjectRecord) {
  return extensionVersions(call.services.door.server(project.server), project.database_name, call.services.servers.get(project.server).version);
}

export const upgradeArea: ApiArea = {
  "v1-get-postgres-upgrade-eligibility": async (call) => {
    const project = await requireProject(call);
    const versions = await versionsOf(call, project);
    const eligible = versions.installed !== undefined && versions.available !== undefined && versions.installed !== versions.available;
    return ok({
      eligible,
      current_app_version: `postgres-${versions.postgresMajor}/pg_graphql-${versions.installed ?? "none"}`,
      current_app_version_release_channel: "ga" as const,
      latest_app_version: `postgres-${versions.postgresMajor}/pg_graphql-${versions.available ?? "none"}`,
      // Only the extension can be upgraded: the target is the same PostgreSQL major version.
      target_upgrade_versions: eligible
        ? [{ postgres_version: postgresEngine(versions.postgresMajor), release_channel: "ga" as const, app_version: `postgres-${versions.postgresMajor}/pg_graphql-${versions.available}` }]
        : [],
      duration_estimate_hours: 0,
      legacy_auth_custom_roles: [],
      objects_to_be_dropped: [],
      unsupported_extensions: [],
      user_defined_objects_in_internal_schemas: [],
      validation_errors: [],
      warnings: [],
    });
  },

  "v1-upgrade-postgres-version": async (call) => {
    const project = await requireProject(call);
    if (project.status !== "ACTIVE_HEALTHY") throw new ApiError(400, `The project is ${project.status === "INACTIVE" ? "paused" : project.status}: restore it first`);
    const { target_version: target } = call.body;
    const versions = await versionsOf(call, project);
    if (target !== versions.postgresMajor) throw new ApiError(400, majorUpgradeRefusal(versions.postgresMajor, target));
    if (versions.installed === undefined || versions.available === undefined) {
      throw new ApiError(400, "pg_graphql is not installed in this project's database or not available on its server");
    }
    const upgrades = call.services.stores.upgrades;
    const trackingId = await upgrades.start(project.ref, target);
    try {
      await upgradeExtension(call.services.door.server(project.server), project.database_name);
      await upgrades.finish(trackingId);
    } catch (e) {
      await upgrades.fail(trackingId, (e as Error).message);
    }
    return ok({ tracking_id: trackingId }, 201);
  },

  "v1-get-postgres-upgrade-status": async (call) => {
    const project = await requireProject(call);
    const trackingId = call.query.tracking_id;
    const row = await call.services.stores.upgrades.find(project.ref, trackingId);
    if (!row && trackingId !== undefined) throw new ApiError(404, `No upgrade with tracking id ${trackingId} for this project`);
    return ok({
      databaseUpgradeStatus: row
        ? {
            initiated_at: row.initiated_at,
            latest_status_at: row.latest_status_at,
            target_version: Number(row.target_version),
            status: row.status,
            progress: row.progress,
            ...(row.error ? { error: row.error } : {}),
          }
        : null,
    });
  },
};

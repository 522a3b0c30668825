// Routes (Management API): `GET /v2/projects/{ref}/config`, which the supabase CLI's `config push`
// reads to compare with config.toml (it writes through the /v1 settings endpoints). A view over
// the documents the /v1 handlers answer, read by the same functions: database (version, SSL,
// network restrictions, settings), Data API, Auth, Realtime and Storage. No pooler runs here:
// `pool_mode` "none" and zero sizes.
import { projectAuthConfig } from "../auth/authConfigDocument";
import { projectPostgresConfig } from "../settings/postgresConfig";
import { projectPostgrestConfig } from "../settings/postgrestConfig";
import { realtimeConfig, storageConfig, type StorageConfig } from "../settings/serviceSettingsStore";
import { ok, type ApiArea } from "../http/operation";
import { v2Shape } from "../access/networkShapes";
import { requireProject } from "../http/access";

/** Storage's document is camelCase in /v1 and snake_case here. */
function storageView(storage: StorageConfig) {
  const f = storage.features;
  return {
    file_size_limit: storage.fileSizeLimit,
    features: {
      image_transformation: { enabled: f.imageTransformation.enabled },
      s3_protocol: { enabled: f.s3Protocol.enabled },
      purge_cache: { enabled: false },
      iceberg_catalog: { enabled: f.icebergCatalog.enabled, max_namespaces: f.icebergCatalog.maxNamespaces, max_tables: f.icebergCatalog.maxTables, max_catalogs: f.icebergCatalog.maxCatalogs },
      vector_buckets: { enabled: f.vectorBuckets.enabled, max_buckets: f.vectorBuckets.maxBuckets, max_indexes: f.vectorBuckets.maxIndexes },
    },
    capabilities: { list_v2: storage.capabilities.list_v2, iceberg_catalog: storage.capabilities.iceberg_catalog, object_versioning: false },
    upstream_target: storage.external.upstreamTarget,
    migration_version: storage.migrationVersion,
  };
}

export const projectConfigV2Area: ApiArea = {
  "v2-get-project-config": async (call) => {
    const project = await requireProject(call);
    const major = Number(call.services.servers.get(project.server).version.split(/[.\s]/)[0]);
    const { services } = call;
    const network = v2Shape(await services.restrictions.get(project.ref));
    const postgrest = await projectPostgrestConfig(services, project);
    const realtime = await realtimeConfig(services.platform, project.ref);
    return ok({
      data: {
        type: "project_config",
        id: project.ref,
        attributes: {
          database: {
            major_version: major,
            ssl_enforced: await services.databaseOptions.sslEnforced(project.ref),
            network_restrictions: {
              entitlement: network.entitlement,
              status: network.status,
              allowed_cidrs: network.config.dbAllowedCidrs,
              ...(network.updated_at ? { updated_at: network.updated_at } : {}),
              ...(network.applied_at ? { applied_at: network.applied_at } : {}),
            },
            postgres_settings: (await projectPostgresConfig(services.door.server(project.server), project)).config,
          },
          pooler: { pool_mode: "none", ignore_startup_parameters: "", server_idle_timeout: 0, server_lifetime: 0, query_wait_timeout: 0, reserve_pool_size: 0, default_pool_size: 0, max_client_conn: 0 },
          auth: await projectAuthConfig(services.platform, project.id),
          api: {
            db_schema: postgrest.db_schema,
            db_extra_search_path: postgrest.db_extra_search_path,
            max_rows: postgrest.max_rows,
            db_pool: postgrest.db_pool ?? null,
            db_pool_acquisition_timeout: postgrest.db_pool_acquisition_timeout,
            db_pool_max_lifetime: postgrest.db_pool_max_lifetime,
            db_pool_max_idletime: postgrest.db_pool_max_idletime,
          },
          realtime: { ...realtime, postgres_changes_pool: null },
          storage: storageView(await storageConfig(services.platform, project.ref)),
        },
      },
    });
  },
};

// Settings stage (Management API): a project's stored settings document of one kind → the
// defaults with the stored changes merged in; a change is merged into the stored document in
// one statement (jsonb concatenation per top-level key, nested objects replaced whole). The
// Realtime and Storage documents are read here with their defaults (by /v1 and /v2 alike).
import type { components } from "../openapi/managementApi.generated";
import type { Sql } from "../platform/sql";

export type ServiceSettingsKind = "realtime" | "storage" | "addons" | "disk";

export class ServiceSettingsStore {
  constructor(private readonly sql: Sql) {}

  async get<T extends object>(ref: string, kind: ServiceSettingsKind, defaults: T): Promise<T> {
    const row = await this.sql.one<{ document: Partial<T> }>("select document from platform.service_settings where project_ref = $1 and kind = $2", [ref, kind]);
    return { ...defaults, ...(row?.document ?? {}) };
  }

  async change(ref: string, kind: ServiceSettingsKind, change: object): Promise<void> {
    await this.sql.rows(
      `insert into platform.service_settings (project_ref, kind, document) values ($1, $2, $3)
       on conflict (project_ref, kind) do update set document = service_settings.document || excluded.document, updated_at = now()`,
      [ref, kind, JSON.stringify(change)],
    );
  }

  /** Drops one top-level key of the stored document (the default answers for it again). */
  async removeKey(ref: string, kind: ServiceSettingsKind, key: string): Promise<void> {
    await this.sql.rows("update platform.service_settings set document = document - $3::text, updated_at = now() where project_ref = $1 and kind = $2", [ref, kind, key]);
  }
}

export type RealtimeConfig = components["schemas"]["RealtimeConfigResponse"];
export type StorageConfig = components["schemas"]["StorageConfigResponse"];

// What a project answers until it changes them (the hosted defaults).
const realtimeDefaults: RealtimeConfig = {
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

const storageDefaults: StorageConfig = {
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

/** A project's Realtime settings: the defaults with its stored changes. */
export function realtimeConfig(platform: Sql, ref: string): Promise<RealtimeConfig> {
  return new ServiceSettingsStore(platform).get(ref, "realtime", realtimeDefaults);
}

/** A project's Storage settings: the defaults with its stored changes. */
export function storageConfig(platform: Sql, ref: string): Promise<StorageConfig> {
  return new ServiceSettingsStore(platform).get(ref, "storage", storageDefaults);
}

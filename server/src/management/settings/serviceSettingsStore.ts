// Settings stage (Management API): a project's stored settings document of one kind → the
// defaults with the stored changes merged in; a change is merged into the stored document in
// one statement (jsonb concatenation per top-level key, nested objects replaced whole).
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

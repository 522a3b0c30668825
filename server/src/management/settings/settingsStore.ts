// Platform store: each project's data API settings and read-only mode state. A project without
// a row has the defaults (the row is made on the first change).
import type { Sql } from "../platform/sql";

export interface ProjectSettings {
  db_schema: string;
  db_extra_search_path: string;
  db_pool: number | null;
  readonly_enabled: boolean;
  /** Milliseconds since the epoch, or null. */
  readonly_override_until: number | null;
  readonly_applied: boolean;
}

export const defaultSettings: ProjectSettings = {
  db_schema: "public",
  db_extra_search_path: "",
  db_pool: null,
  readonly_enabled: false,
  readonly_override_until: null,
  readonly_applied: false,
};

const columns = `db_schema, db_extra_search_path, db_pool, readonly_enabled, readonly_applied,
  (extract(epoch from readonly_override_until) * 1000)::float8 as readonly_override_until`;

export class SettingsStore {
  constructor(private readonly sql: Sql) {}

  async get(ref: string): Promise<ProjectSettings> {
    return (await this.sql.one<ProjectSettings>(`select ${columns} from platform.project_settings where ref = $1`, [ref])) ?? defaultSettings;
  }

  /** Writes the given fields (the others keep their value) and returns the whole row. */
  async update(ref: string, changes: Partial<ProjectSettings>): Promise<ProjectSettings> {
    const current = await this.get(ref);
    const next = { ...current, ...changes };
    const row = await this.sql.one<ProjectSettings>(
      `insert into platform.project_settings as s (ref, db_schema, db_extra_search_path, db_pool, readonly_enabled,
         readonly_override_until, readonly_applied)
       values ($1, $2, $3, $4, $5, to_timestamp($6::float8 / 1000), $7)
       on conflict (ref) do update set db_schema = excluded.db_schema, db_extra_search_path = excluded.db_extra_search_path,
         db_pool = excluded.db_pool, readonly_enabled = excluded.readonly_enabled,
         readonly_override_until = excluded.readonly_override_until, readonly_applied = excluded.readonly_applied,
         updated_at = now()
       returning ${columns}`,
      [ref, next.db_schema, next.db_extra_search_path, next.db_pool, next.readonly_enabled, next.readonly_override_until, next.readonly_applied],
    );
    return row!;
  }
}

/** A comma-separated schema list → its names, trimmed, without empty entries or repeats. */
export function schemaList(text: string): string[] {
  return [...new Set(text.split(",").map((s) => s.trim()).filter((s) => s.length > 0))];
}

/** The search path of the project's GraphQL requests: the exposed schemas, then the extra ones. */
export function searchPathOf(settings: Pick<ProjectSettings, "db_schema" | "db_extra_search_path">): string[] {
  return [...new Set([...schemaList(settings.db_schema), ...schemaList(settings.db_extra_search_path)])];
}

/** The data API refuses writes while read-only mode is on and no override is running. */
export function readOnlyNow(settings: ProjectSettings, now: number): boolean {
  return settings.readonly_enabled && !(settings.readonly_override_until !== null && now < settings.readonly_override_until);
}

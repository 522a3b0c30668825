// Settings stage: the database settings of the hosted document ⇄ PostgreSQL. Settings a session
// may change are set on the project's database (ALTER DATABASE ... SET, validated by PostgreSQL;
// new sessions only, so the data API pool is reopened). Server-wide ones (sighup, postmaster)
// would change every database on the server: refused unless the server holds this project alone,
// then written with ALTER SYSTEM and reloaded (postmaster ones wait for a restart).
import format from "pg-format";
import { ApiError } from "../http/apiError";
import { sqlState, withConnection, type Sql } from "../platform/sql";

type Kind = "integer" | "string" | "boolean";

/** The settings of the hosted document and their JSON types. */
export const postgresConfigFields: Record<string, Kind> = {
  effective_cache_size: "string",
  logical_decoding_work_mem: "string",
  maintenance_work_mem: "string",
  track_activity_query_size: "string",
  max_connections: "integer",
  max_locks_per_transaction: "integer",
  max_parallel_maintenance_workers: "integer",
  max_parallel_workers: "integer",
  max_parallel_workers_per_gather: "integer",
  max_replication_slots: "integer",
  max_slot_wal_keep_size: "string",
  max_standby_archive_delay: "string",
  max_standby_streaming_delay: "string",
  max_wal_size: "string",
  max_wal_senders: "integer",
  max_worker_processes: "integer",
  session_replication_role: "string",
  shared_buffers: "string",
  statement_timeout: "string",
  track_commit_timestamp: "boolean",
  wal_keep_size: "string",
  wal_sender_timeout: "string",
  work_mem: "string",
  checkpoint_timeout: "string",
  hot_standby_feedback: "boolean",
};

export type PostgresConfig = Record<string, string | number | boolean>;

export interface PostgresConfigTarget {
  /** Superuser URL of the project's database (its settings as a new session sees them). */
  databaseUrl: string;
  /** Superuser URL of the server's maintenance database. */
  adminUrl: string;
  database: string;
  /** Whether the server holds this project's database and no other. */
  soleTenant: () => Promise<boolean>;
}

interface SettingRow {
  name: string;
  setting: string;
  shown: string;
  context: string;
  /** Written for the server's next start (ALTER SYSTEM of a postmaster setting). */
  pending_restart: boolean;
}

async function settingRows(sql: Sql, names: string[]): Promise<SettingRow[]> {
  return sql.rows<SettingRow>("select name, setting, current_setting(name) as shown, context, pending_restart from pg_settings where name = any($1) order by name", [names]);
}

function asJson(row: SettingRow): string | number | boolean {
  switch (postgresConfigFields[row.name]) {
    case "integer":
      return Number(row.setting);
    case "boolean":
      return row.setting === "on";
    default:
      return row.shown;
  }
}

export interface PostgresConfigState {
  /** The values a new session of the project's database gets. */
  config: PostgresConfig;
  /** The settings written but waiting for a restart of the server. */
  pendingRestart: string[];
}

export async function readPostgresConfig(databaseUrl: string): Promise<PostgresConfigState> {
  const rows = await withConnection(databaseUrl, (sql) => settingRows(sql, Object.keys(postgresConfigFields)));
  return { config: Object.fromEntries(rows.map((r) => [r.name, asJson(r)])), pendingRestart: rows.filter((r) => r.pending_restart).map((r) => r.name) };
}

function settingText(value: unknown): string {
  return typeof value === "boolean" ? (value ? "on" : "off") : String(value);
}

/** PostgreSQL's refusal of a value (unknown unit, out of range, ...) is the caller's error. */
function refusal(e: unknown): never {
  const state = sqlState(e);
  if (state !== undefined && (state.startsWith("22") || state.startsWith("42") || state === "55P02")) {
    throw new ApiError(400, `PostgreSQL refused the setting: ${(e as Error).message}; nothing was changed`);
  }
  throw e;
}

/** Contexts a session may set: these go on the project's database. */
const perDatabaseContexts = new Set(["user", "superuser"]);

async function checkServerWide(target: PostgresConfigTarget, rows: SettingRow[]): Promise<void> {
  const serverWide = rows.filter((r) => !perDatabaseContexts.has(r.context));
  if (serverWide.length === 0 || (await target.soleTenant())) return;
  const names = serverWide.map((r) => `${r.name} (${r.context})`).join(", ");
  throw new ApiError(
    400,
    `${names} apply to the whole PostgreSQL server, and this project shares its server with other databases: they cannot be set for one project; nothing was changed`,
  );
}

/** Server-wide settings on a server holding only this project: ALTER SYSTEM, then a reload.
 * A refused value puts back what postgresql.auto.conf had for the names already written. */
async function setServerWide(target: PostgresConfigTarget, changes: Array<[string, unknown]>): Promise<void> {
  await withConnection(target.adminUrl, async (sql) => {
    const before = await sql.rows<{ name: string; setting: string }>(
      `select distinct on (name) name, setting from pg_file_settings
        where name = any($1) and sourcefile like '%/postgresql.auto.conf' order by name, seqno desc`,
      [changes.map(([name]) => name)],
    );
    const previous = new Map(before.map((r) => [r.name, r.setting]));
    const done: string[] = [];
    try {
      for (const [name, value] of changes) {
        await sql.rows(format("alter system set %I = %L", name, settingText(value)));
        done.push(name);
      }
    } catch (e) {
      for (const name of done) {
        const old = previous.get(name);
        await sql.rows(old === undefined ? format("alter system reset %I", name) : format("alter system set %I = %L", name, old));
      }
      refusal(e);
    }
    await sql.rows("select pg_reload_conf()");
  });
}

/** Applies the changes (all or none) and answers the settings new sessions get. Postmaster
 * settings are written for the next start only: `pendingRestart` names them. */
export async function updatePostgresConfig(target: PostgresConfigTarget, body: Record<string, unknown>): Promise<PostgresConfigState> {
  const { restart_database: _restart, ...values } = body;
  const entries = Object.entries(values);
  const rows = await withConnection(target.adminUrl, (sql) => settingRows(sql, entries.map(([k]) => k)));
  await checkServerWide(target, rows);
  const context = new Map(rows.map((r) => [r.name, r.context]));
  const perDatabase = entries.filter(([name]) => perDatabaseContexts.has(context.get(name)!));
  const serverWide = entries.filter(([name]) => !perDatabaseContexts.has(context.get(name)!));
  await withConnection(target.adminUrl, async (sql) => {
    await sql.rows("begin");
    try {
      for (const [name, value] of perDatabase) {
        await sql.rows(format("alter database %I set %I = %L", target.database, name, settingText(value)));
      }
      // Last, so a refused server-wide value rolls the per-database ones back too.
      if (serverWide.length > 0) await setServerWide(target, serverWide);
      await sql.rows("commit");
    } catch (e) {
      await sql.rows("rollback").catch(() => {});
      refusal(e);
    }
  });
  return readPostgresConfig(target.databaseUrl);
}

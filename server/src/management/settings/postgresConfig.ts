// Settings stage: the database settings of the hosted document ⇄ PostgreSQL. Settings a session
// may change are set on the project's database (ALTER DATABASE ... SET, validated by PostgreSQL;
// new sessions only, so the data API pool is reopened). Server-wide ones (sighup, postmaster)
// would change every database on the server: refused unless the server holds this project alone,
// then written with ALTER SYSTEM and reloaded (postmaster ones wait for a restart).
// The tenant's database is never asked: values come from the maintenance database, and only
// the fields below can be written (the superuser door sets them).
import type { SettingRow } from "../door/doorServerSettings";
import type { ServerDoor } from "../door/superuserDoor";
import { invalid } from "../errors/domainError";
import { sqlState } from "../platform/sql";

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
  door: ServerDoor;
  database: string;
  /** Whether the server holds this project's database and no other. */
  soleTenant: () => Promise<boolean>;
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

/** The values a new session of the database gets: its own settings over the server's, read
 * from the maintenance database (the tenant's database is never asked). */
/** A project's database settings, read through its server's door (the /v1 and /v2 answers). */
export function projectPostgresConfig(door: ServerDoor, project: { database_name: string }): Promise<PostgresConfigState> {
  return readPostgresConfig({ door, database: project.database_name });
}

export async function readPostgresConfig(target: Pick<PostgresConfigTarget, "door" | "database">): Promise<PostgresConfigState> {
  const rows = await target.door.settings.forDatabase(target.database, Object.keys(postgresConfigFields));
  return { config: Object.fromEntries(rows.map((r) => [r.name, asJson(r)])), pendingRestart: rows.filter((r) => r.pending_restart).map((r) => r.name) };
}

function settingText(value: unknown): string {
  return typeof value === "boolean" ? (value ? "on" : "off") : String(value);
}

/** PostgreSQL's refusal of a value (unknown unit, out of range, ...) is the caller's error. */
function refusal(e: unknown): never {
  const state = sqlState(e);
  if (state !== undefined && (state.startsWith("22") || state.startsWith("42") || state === "55P02")) {
    throw invalid(`PostgreSQL refused the setting: ${(e as Error).message}; nothing was changed`);
  }
  throw e;
}

/** Contexts a session may set: these go on the project's database. */
const perDatabaseContexts = new Set(["user", "superuser"]);

async function checkServerWide(target: PostgresConfigTarget, rows: SettingRow[]): Promise<void> {
  const serverWide = rows.filter((r) => !perDatabaseContexts.has(r.context));
  if (serverWide.length === 0 || (await target.soleTenant())) return;
  const names = serverWide.map((r) => `${r.name} (${r.context})`).join(", ");
  throw invalid(`${names} apply to the whole PostgreSQL server, and this project shares its server with other databases: they cannot be set for one project; nothing was changed`,
  );
}

/** Applies the changes (all or none) and answers the settings new sessions get. Postmaster
 * settings are written for the next start only: `pendingRestart` names them. */
export async function updatePostgresConfig(target: PostgresConfigTarget, body: Record<string, unknown>): Promise<PostgresConfigState> {
  const { restart_database: _restart, ...values } = body;
  const entries = Object.entries(values).filter(([name]) => name in postgresConfigFields);
  const rows = await target.door.settings.rows(entries.map(([k]) => k));
  await checkServerWide(target, rows);
  const context = new Map(rows.map((r) => [r.name, r.context]));
  const text = (list: Array<[string, unknown]>) => list.map(([name, value]): [string, string] => [name, settingText(value)]);
  try {
    await target.door.settings.apply(
      target.database,
      text(entries.filter(([name]) => perDatabaseContexts.has(context.get(name)!))),
      text(entries.filter(([name]) => !perDatabaseContexts.has(context.get(name)!))),
    );
  } catch (e) {
    refusal(e);
  }
  return readPostgresConfig(target);
}

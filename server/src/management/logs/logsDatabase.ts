// Logs stage: the platform database URL → its logs database (`<platform>_logs` on the same
// server), created and migrated, with a login role that can read nothing but the `logs` views,
// read only and under a statement timeout. Returns the writer (platform) and reader pools.
import { randomBytes } from "node:crypto";
import format from "pg-format";
import { databaseOf, withDatabase, withUser } from "../platform/connectionUrl";
import { ensurePlatformDatabase, migrate } from "../platform/migrate";
import { SqlPool, sqlState, withConnection, type Sql } from "../platform/sql";
import { logViews, logsMigrations } from "./logsSchema";

export interface LogsDatabase {
  writer: SqlPool;
  /** The reader role's URL: each query gets a session of its own, so nothing one tenant's query
   * sets or leaves (settings, locks, a failed state) meets the next. */
  readerUrl: string;
  close(): Promise<void>;
}

// Every tenant's logs query runs as the one reader role: what PUBLIC may do to other sessions
// of the same role (see their query text, cancel or end them) is taken back in this database.
const signalsAndActivity = [
  "function pg_catalog.pg_terminate_backend(integer, bigint)",
  "function pg_catalog.pg_cancel_backend(integer)",
  "function pg_catalog.pg_stat_get_activity(integer)",
  "function pg_catalog.pg_stat_get_backend_activity(integer)",
  "function pg_catalog.pg_stat_get_backend_activity_start(integer)",
  "function pg_catalog.pg_stat_get_backend_client_addr(integer)",
  "table pg_catalog.pg_stat_activity",
];

// Arbitrary constant naming the lock under which the reader role is set up.
const readerLock = 7_301_401;

async function ensureReader(sql: Sql, database: string, role: string): Promise<string> {
  await sql.rows("select pg_advisory_xact_lock($1)", [readerLock]);
  const stored = await sql.one<{ password: string }>("select password from logs_internal.reader");
  const password = stored?.password ?? randomBytes(24).toString("hex");
  const exists = await sql.one("select 1 from pg_roles where rolname = $1", [role]);
  if (!exists) await sql.rows(format("create role %I", role));
  await sql.rows(format("alter role %I with login nosuperuser nocreatedb nocreaterole noinherit password %L", role, password));
  if (!stored) await sql.rows("insert into logs_internal.reader (password) values ($1)", [password]);
  await sql.rows(format("alter role %I in database %I set default_transaction_read_only = on", role, database));
  await sql.rows(format("alter role %I in database %I set statement_timeout = '10s'", role, database));
  await sql.rows(format("alter role %I in database %I set search_path = logs", role, database));
  await sql.rows(format("revoke all on database %I from public", database));
  await sql.rows(format("grant connect on database %I to %I", database, role));
  await sql.rows(format("grant usage on schema logs to %I", role));
  await sql.rows(format("grant execute on function logs.ticket() to %I", role));
  for (const view of logViews) await sql.rows(format("grant select on logs.%I to %I", view, role));
  for (const object of signalsAndActivity) await sql.rows(`revoke all on ${object} from public`);
  return password;
}

export async function openLogsDatabase(platformUrl: string): Promise<LogsDatabase> {
  const database = `${databaseOf(platformUrl)}_logs`;
  const url = withDatabase(platformUrl, database);
  await ensurePlatformDatabase(url);
  const writer = new SqlPool(url, 2, "pg_graphql_logs");
  try {
    await migrate(writer, logsMigrations);
    const role = `${database}_reader`;
    const password = await writer.transaction((tx) => ensureReader(tx, database, role));
    return {
      writer,
      readerUrl: withUser(url, role, password),
      async close() {
        await writer.end();
      },
    };
  } catch (e) {
    await writer.end();
    throw e;
  }
}

/** Drops a logs database and its reader role (tests, and removing a platform). */
export async function dropLogsDatabase(adminUrl: string, platformDatabase: string): Promise<void> {
  const database = `${platformDatabase}_logs`;
  await withConnection(adminUrl, async (sql) => {
    await sql.rows(format("drop database if exists %I with (force)", database));
    try {
      await sql.rows(format("drop role if exists %I", `${database}_reader`));
    } catch (e) {
      if (sqlState(e) !== "2BP01") throw e;
    }
  });
}

// Door (kernel): a project server's superuser URL and a database → one connection opened for a
// piece of work and closed after, its settings pinned in the startup packet. Startup options win
// over every ALTER DATABASE/ROLE ... SET, so nothing a tenant set on its database (search_path,
// timeouts, read-only, plv8.start_proc) reaches a superuser session.
import { withDatabase } from "../platform/connectionUrl";
import { withConnection, type Sql } from "../platform/sql";

/** The name superuser sessions show in pg_stat_activity and the server log. */
export const doorApplicationName = "pg_graphql_door";

const pinned: Array<[string, string]> = [
  // Only the catalog resolves names (pg_temp last, so a temporary object never shadows one).
  ["search_path", "pg_catalog,pg_temp"],
  ["statement_timeout", "300s"],
  ["lock_timeout", "30s"],
  ["idle_in_transaction_session_timeout", "60s"],
  ["idle_session_timeout", "0"],
  ["default_transaction_read_only", "off"],
  ["session_replication_role", "origin"],
  ["check_function_bodies", "on"],
  ["DateStyle", "ISO"],
  ["IntervalStyle", "postgres"],
  ["TimeZone", "UTC"],
  ["client_min_messages", "warning"],
  // A start procedure never runs for a superuser session (the handler also checks its owner).
  ["plv8.start_proc", ""],
];

export const pinnedOptions = pinned.map(([name, value]) => `-c ${name}=${value}`).join(" ");

/** Runs `work` on a new superuser connection to `database`; the connection ends with it. */
export function withPinnedSession<T>(adminUrl: string, database: string, work: (sql: Sql) => Promise<T>): Promise<T> {
  return withConnection(withDatabase(adminUrl, database), work, { applicationName: doorApplicationName, startupOptions: pinnedOptions });
}

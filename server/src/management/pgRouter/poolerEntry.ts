// Router stage: a project and the database router's address → the PRIMARY entry of the project's
// pooler config (`GET config/database/pooler`) in the hosted shape, and the pgbouncer config
// (`GET config/database/pgbouncer`) made from it. The router routes but does not pool, so the pool
// figures are null (or left out) and the answer says so.
import type { ProjectRecord } from "../tenants/projectStore";

/** Where the database router listens: the server's configured host and the bound port. */
export interface RouterAddress {
  host: string;
  port: number;
  /** The router's cap on one project's client sessions, when it has one (its `max_client_conn`). */
  sessionsPerProject?: number;
}

export interface PoolerEntry {
  identifier: string;
  database_type: "PRIMARY";
  is_using_scram_auth: boolean;
  db_user: string;
  db_host: string;
  db_port: number;
  db_name: string;
  connection_string: string;
  connectionString: string;
  default_pool_size: number | null;
  max_client_conn: number | null;
  pool_mode: "session";
}

export const routerNote =
  "The database router does not pool: each client connection is its own PostgreSQL session on the project's server (pool_mode session), so default_pool_size is null, and max_client_conn is the router's cap on one project's sessions (null without one); the password is the project's database password";

export const noRouterNote =
  "No connection pooler and no database router run on this server (start it with --database-router-port): connect to the project's server directly";

/** The role and database names the router expects: `<role>.<ref>` and `postgres`. */
export function poolerEntry(project: Pick<ProjectRecord, "ref" | "owner_role">, router: RouterAddress, scram: boolean): PoolerEntry {
  const user = `${project.owner_role}.${project.ref}`;
  const host = router.host.includes(":") ? `[${router.host}]` : router.host;
  const url = `postgresql://${user}:[YOUR-PASSWORD]@${host}:${router.port}/postgres`;
  return {
    identifier: project.ref,
    database_type: "PRIMARY",
    is_using_scram_auth: scram,
    db_user: user,
    db_host: router.host,
    db_port: router.port,
    db_name: "postgres",
    connection_string: url,
    connectionString: url,
    default_pool_size: null,
    max_client_conn: router.sessionsPerProject ?? null,
    pool_mode: "session",
  };
}

/** The pgbouncer config's view of the same entry: session mode, its connection string, and the
 * router's cap when it has one (the document's fields are integers, so an absent figure is left out). */
export function pgbouncerConfig(entry: PoolerEntry): { pool_mode: "session"; connection_string: string; max_client_conn?: number; default_pool_size?: number } {
  return {
    pool_mode: entry.pool_mode,
    connection_string: entry.connection_string,
    ...(entry.max_client_conn !== null ? { max_client_conn: entry.max_client_conn } : {}),
    ...(entry.default_pool_size !== null ? { default_pool_size: entry.default_pool_size } : {}),
  };
}

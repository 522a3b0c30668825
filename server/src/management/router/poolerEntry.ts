// Router stage: a project and the database router's address → the PRIMARY entry of the project's
// pooler config (`GET config/database/pooler`) in the hosted shape. The router routes but does not
// pool, so the pool figures are null and the answer says so.
import type { ProjectRecord } from "../store/projectStore";

/** Where the database router listens: the server's configured host and the bound port. */
export interface RouterAddress {
  host: string;
  port: number;
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
  "The database router does not pool: each client connection is its own PostgreSQL session on the project's server (pool_mode session), so default_pool_size and max_client_conn are null; the password is the project's database password";

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
    max_client_conn: null,
    pool_mode: "session",
  };
}

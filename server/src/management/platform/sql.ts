// Platform stage: the one layer through which the Management API runs SQL, on the platform
// database or on a project server: parameterized statements, transactions, sessions, bulk loads,
// errors.
import { finished } from "node:stream/promises";
import pg from "pg";
import { from as copyStream } from "pg-copy-streams";

/** Runs parameterized statements; a pool, a transaction and a session all offer it. */
export interface Sql {
  rows<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  one<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R | undefined>;
}

/** The `Sql` of a pool, a pooled client or a client. */
export function sqlOn(client: pg.Pool | pg.PoolClient | pg.Client): Sql {
  return {
    async rows<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
      return (await client.query<R>(text, values)).rows;
    },
    async one<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R | undefined> {
      return (await client.query<R>(text, values)).rows[0];
    },
  };
}

/** The SQLSTATE of a database error, when it is one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Whether the error ended the connection it came from (no SQLSTATE: a socket error). */
export function connectionLost(error: unknown): boolean {
  const state = sqlState(error);
  return state === undefined || state.startsWith("08") || state.startsWith("57P");
}

export class SqlPool implements Sql {
  readonly pool: pg.Pool;
  private readonly sql: Sql;

  constructor(connectionString: string, max: number, applicationName = "pg_graphql_platform") {
    this.pool = new pg.Pool({ connectionString, max, application_name: applicationName });
    // A client losing its backend (idle or in use: a restart, a pg_terminate_backend) must not
    // end the process: the pool drops it, and the work in progress gets the error.
    this.pool.on("error", () => {});
    this.pool.on("connect", (client) => client.on("error", () => {}));
    this.sql = sqlOn(this.pool);
  }

  rows<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    return this.sql.rows<R>(text, values);
  }

  one<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R | undefined> {
    return this.sql.one<R>(text, values);
  }

  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.session(async (session) => {
      await session.rows("begin");
      try {
        const result = await work(session);
        await session.rows("commit");
        return result;
      } catch (e) {
        await session.rows("rollback").catch(() => {});
        throw e;
      }
    });
  }

  /** Runs `work` on one connection held throughout (for session-level advisory locks). */
  session<T>(work: (session: Sql) => Promise<T>): Promise<T> {
    return this.withClient((client) => work(sqlOn(client)));
  }

  /** Loads `data`, rows in COPY's text format, with one `COPY ... FROM STDIN` statement. */
  copyFrom(statement: string, data: string | Buffer): Promise<void> {
    return this.withClient(async (client) => {
      const stream = client.query(copyStream(statement));
      stream.end(data);
      await finished(stream);
    });
  }

  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      return await work(client);
    } catch (e) {
      broken = connectionLost(e);
      throw e;
    } finally {
      client.release(broken);
    }
  }

  async end(): Promise<void> {
    await this.pool.end();
  }
}

/** Runs `work` on a single connection opened for it (CREATE/DROP DATABASE need one outside any
 * transaction block; a template must not be left connected). */
export async function withConnection<T>(
  connectionString: string,
  work: (sql: Sql) => Promise<T>,
  options: { timeoutMs?: number; applicationName?: string } = {},
): Promise<T> {
  const limits = options.timeoutMs === undefined ? {} : { connectionTimeoutMillis: options.timeoutMs, statement_timeout: options.timeoutMs };
  const client = new pg.Client({ connectionString, application_name: options.applicationName ?? "pg_graphql_platform", ...limits });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(sqlOn(client));
  } finally {
    await client.end().catch(() => {});
  }
}

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

/** Raised when no pooled connection came free within the pool's connection timeout. */
export class PoolBusyError extends Error {}

export class SqlPool implements Sql {
  readonly pool: pg.Pool;
  private readonly sql: Sql;

  /** `connectionTimeoutMs`: the longest a caller waits for a connection (0: no limit). */
  constructor(
    private readonly connectionString: string,
    max: number,
    private readonly applicationName = "pg_graphql_platform",
    private readonly connectionTimeoutMs = 0,
  ) {
    this.pool = new pg.Pool({ connectionString, max, application_name: applicationName, connectionTimeoutMillis: connectionTimeoutMs });
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

  /** Runs `work` on one pooled connection held throughout. */
  session<T>(work: (session: Sql) => Promise<T>): Promise<T> {
    return this.withClient((client) => work(sqlOn(client)));
  }

  /** Runs `work` on a connection of its own, outside the pool, closed after: for a session-level
   * lock held while the work under it uses the pool (from the pool, a lock per operation could
   * take every connection and leave the work waiting for one forever). */
  detached<T>(work: (session: Sql) => Promise<T>): Promise<T> {
    return withConnection(this.connectionString, work, {
      applicationName: this.applicationName,
      ...(this.connectionTimeoutMs > 0 ? { connectTimeoutMs: this.connectionTimeoutMs } : {}),
    });
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
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      if (/timeout exceeded when trying to connect/.test((e as Error).message)) {
        throw new PoolBusyError(`every connection to the platform database stayed busy for ${this.connectionTimeoutMs} ms`);
      }
      throw e;
    }
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
  options: { timeoutMs?: number; connectTimeoutMs?: number; applicationName?: string; startupOptions?: string } = {},
): Promise<T> {
  const connectMs = options.connectTimeoutMs ?? options.timeoutMs;
  const limits = {
    ...(connectMs === undefined ? {} : { connectionTimeoutMillis: connectMs }),
    ...(options.timeoutMs === undefined ? {} : { statement_timeout: options.timeoutMs }),
  };
  const startup = options.startupOptions === undefined ? {} : { options: options.startupOptions };
  const client = new pg.Client({ connectionString, application_name: options.applicationName ?? "pg_graphql_platform", ...limits, ...startup });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(sqlOn(client));
  } finally {
    await client.end().catch(() => {});
  }
}

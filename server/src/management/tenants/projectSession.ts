// Project stage: a project login → one connection held for a piece of work, made for it and
// closed after, so nothing a session sets (roles, settings, temp tables, an open transaction)
// reaches the next caller. A client-side timer cancels what runs past the statement timeout
// even when the SQL turned the server's own timeout off.
import pg from "pg";
import { sendCancel } from "../../cancelRequest";
import type { ProjectLogin } from "./projectLogins";

export interface ProjectSession {
  /** Runs SQL text (several statements when there are no parameters); the last statement's rows. */
  run<R = Record<string, unknown>>(text: string, parameters?: unknown[]): Promise<R[]>;
  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** The underlying client, for libraries that take a `query()` function. */
  client: pg.Client;
}

/** Raised when the timer cancelled the work. */
export class SessionTimeout extends Error {}

// Dates and times stay PostgreSQL's text: JSON has no date type, and a JS Date loses precision.
const textTypes = [1082, 1083, 1114, 1184, 1266];
const types = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    textTypes.includes(oid) ? (value: string) => value : pg.types.getTypeParser(oid, format ?? "text"),
};

function lastRows(result: pg.QueryResult | pg.QueryResult[]): Record<string, unknown>[] {
  const results = Array.isArray(result) ? result : [result];
  return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
}

export async function withProjectSession<T>(login: ProjectLogin, timeoutMs: number, work: (session: ProjectSession) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: login.url, options: login.options, application_name: "pg_graphql_platform", types });
  client.on("error", () => {});
  await client.connect();
  let timedOut = false;
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          void sendCancel(client as unknown as pg.PoolClient);
        }, timeoutMs)
      : undefined;
  const session: ProjectSession = {
    client,
    async run<R>(text: string, parameters?: unknown[]) {
      const result = parameters && parameters.length > 0 ? await client.query(text, parameters) : await client.query(text);
      return lastRows(result as pg.QueryResult | pg.QueryResult[]) as R[];
    },
    async transaction(work) {
      await client.query("begin");
      try {
        const result = await work();
        await client.query("commit");
        return result;
      } catch (e) {
        await client.query("rollback").catch(() => {});
        throw e;
      }
    },
  };
  try {
    return await work(session);
  } catch (e) {
    if (timedOut) throw new SessionTimeout(`the query ran longer than the statement timeout (${timeoutMs} ms) and was cancelled`);
    throw e;
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => {});
  }
}

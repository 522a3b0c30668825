// Execute stage (server side): the statement from resolveStatement → the response body text
// straight from PostgreSQL. The only code here that talks to the database: it bounds each
// statement's time, cancels it when the client goes away, and retries what never reached the
// server, a query whose connection died under it, or what met a concurrent extension upgrade.
import pg from "pg";
import { OperationTypeNode } from "graphql";
import type { JWTPayload } from "jose";
import { sendCancel } from "./cancelRequest";
import { classify, type Outcome } from "./outcome";
import { resolveParams, resolveSql, resolveStatementName, type GraphQLPayload } from "./resolveStatement";
import { invariant } from "../../src/util/invariant";

export type { Outcome } from "./outcome";

export interface DatabaseOptions {
  connectionString: string;
  poolSize: number;
  /** 0 for no limit. */
  statementTimeoutMs: number;
  /** Off behind a transaction-mode pooler, where a connection's prepared statements vanish. */
  preparedStatements: boolean;
  /** A connection idle this long is closed (ms); absent or 0: idle connections are kept. */
  idleTimeoutMs?: number;
  /** Room for each new connection, shared with other pools (a server's connection budget). */
  slots?: ConnectionSlots;
}

/** The client a statement answers: it may leave before the answer (its statement is then
 * cancelled). An AbortSignal costs more per request than a request needs. */
export interface Requester {
  /** True once the client has left without its answer. */
  readonly left: boolean;
  /** `listener` runs when the client may have left, and reads `left` to know. */
  watch(listener: () => void): void;
  unwatch(listener: () => void): void;
}

/** A budget of connections shared by several pools: a pool asks for room before it opens a
 * connection and gives it back when that connection closes. */
export interface ConnectionSlots {
  /** Resolves with the function that frees the room once there is some, or rejects with
   * ConnectionsBusy past the budget's wait. */
  take(requester: Database): Promise<() => void>;
  /** The pool is in use: the last to give up a connection when another pool needs room. */
  used(database: Database): void;
  /** The pool is closed. */
  forget(database: Database): void;
  /** A connection of the pool went back idle: another pool may be waiting for room. */
  released(database: Database): void;
}

/** No room for a new connection came free in time: every connection of the budget was busy. */
export class ConnectionsBusy extends Error {}

/** pg's Client, made to wait for room in `slots` before it connects and to free it when it ends
 * (pg-pool calls `connect` with a callback). */
function slottedClient(slots: ConnectionSlots, owner: Database): typeof pg.Client {
  const connect = pg.Client.prototype.connect;
  class SlottedClient extends pg.Client {}
  SlottedClient.prototype.connect = function (this: pg.Client, callback?: (err: Error | null) => void) {
    if (!callback) return new Promise<void>((resolve, reject) => this.connect((e: Error | null) => (e ? reject(e) : resolve())));
    slots.take(owner).then(
      (free) => {
        this.once("end", free);
        connect.call(this, (err: Error | null) => {
          if (err) free();
          callback(err);
        });
      },
      (e: Error) => callback(e),
    );
    return undefined;
  } as typeof connect;
  return SlottedClient;
}

type Cancelled = "timeout" | "disconnect";
type Attempt = { kind: "done"; body: string } | { kind: "error"; error: AttemptError; cancelled: Cancelled | undefined };

/** Runs of a statement that met a transient error (a concurrent upgrade, a deadlock). */
const maxAttempts = 3;

type AttemptError = Error & { code?: string; severity?: string };

// Errors raised before the statement was written to the connection: its backend had already
// gone (the pool noticed too late). Running it on another connection is safe.
function neverSent(error: AttemptError): boolean {
  return error.code === "EPIPE" || /is not queryable/.test(error.message);
}

// Sessions the server ended, not statements it refused: terminated by an administrator or a
// shutdown (57P01), ended by another backend's crash (57P02), or not accepted yet (57P03); and
// connection failures (class 08).
const sessionEndedCodes = new Set(["57P01", "57P02", "57P03"]);

/** Errors that end the connection rather than the statement: the socket closed or reset, or
 * the server ended the session. A statement's own fatal error (out of memory in JavaScript, say)
 * is not one: running it again would fail the same way. */
function connectionLost(error: AttemptError): boolean {
  if (error.severity === undefined) {
    return /^E[A-Z]+$/.test(error.code ?? "") || /Connection terminated|is not queryable/.test(error.message);
  }
  return error.code !== undefined && (sessionEndedCodes.has(error.code) || error.code.startsWith("08"));
}

/** Runs the resolve statement on `client`. The Query is made from the statement's text, then
 * named: pg copies a query config object property by property on every call, which cost more than
 * the rest of pg's work on a request. */
function runResolve(client: pg.PoolClient, params: unknown[], prepared: boolean): Promise<pg.QueryResult<{ body: string | null }>> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query(resolveSql, params, (error, result) => (error ? reject(error) : resolve(result as unknown as pg.QueryResult)));
    if (prepared) (query as unknown as { name: string }).name = resolveStatementName;
    void client.query(query);
  });
}

export class Database {
  readonly pool: pg.Pool;
  /** Statements run again on a fresh connection because the first never reached the server. */
  unsentRetries = 0;
  /** Queries run again on another connection because theirs died while they ran. */
  lostConnectionRetries = 0;

  constructor(private readonly options: DatabaseOptions) {
    // Idle connections are kept unless told otherwise: a new backend pays for loading the
    // resolver and reflecting the schema on its first request, and the pool is bounded by its
    // size anyway. A project's pool closes them after a while, so an idle project holds none.
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      idleTimeoutMillis: options.idleTimeoutMs ?? 0,
      application_name: "pg_graphql_server",
      ...(options.slots ? { Client: slottedClient(options.slots, this) } : {}),
    });
    // A client losing its backend must not crash the server, idle (the pool replaces it) or
    // checked out (the request's query fails, and the broken client is closed on release).
    this.pool.on("error", () => {});
    this.pool.on("connect", (client) => client.on("error", () => {}));
    // Once the released connection is in the idle list (or taken by this pool's next request).
    const slots = options.slots;
    if (slots) this.pool.on("release", (err) => err || queueMicrotask(() => slots.released(this)));
  }

  /**
   * Runs a request's statement. `operation` is the kind of the operation the document selects
   * (undefined when it selects none or does not parse): a query only reads, so it runs again on
   * another connection after any connection-level failure; anything else runs again only when
   * the failure came before the statement was sent, since after sending nothing proves it did
   * not run. A pool holds at most `poolSize` connections that may have died together, so that
   * many failures plus one more can only come from a server that keeps failing.
   */
  async resolve(
    operation: OperationTypeNode | undefined,
    role: string,
    claims: JWTPayload,
    schemas: string[],
    payload: GraphQLPayload,
    requester?: Requester,
  ): Promise<Outcome> {
    const params = resolveParams(role, claims, schemas, payload);
    const readOnly = operation === OperationTypeNode.QUERY;
    let connectionFailures = 0;
    let transientFailures = 0;
    for (;;) {
      if (requester?.left) return { kind: "abandoned" };
      this.options.slots?.used(this);
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (e) {
        if (e instanceof ConnectionsBusy) return { kind: "busy", message: e.message };
        return { kind: "unavailable", message: (e as Error).message };
      }
      // The client may have gone while the request waited for a connection.
      if (requester?.left) {
        client.release();
        return { kind: "abandoned" };
      }
      const result = await this.attempt(client, params, requester);
      if (result.kind === "done") return { kind: "result", body: result.body };
      if (result.cancelled === undefined && connectionFailures <= this.options.poolSize) {
        if (neverSent(result.error)) {
          connectionFailures += 1;
          this.unsentRetries += 1;
          continue;
        }
        if (readOnly && connectionLost(result.error)) {
          connectionFailures += 1;
          this.lostConnectionRetries += 1;
          continue;
        }
      }
      const outcome = classify(result.error, result.cancelled, this.options.statementTimeoutMs);
      if (outcome.kind !== "retry") return outcome;
      transientFailures += 1;
      if (transientFailures >= maxAttempts) return outcome.otherwise;
    }
  }

  /** Runs the statement once on `client`, cancelling it on timeout or disconnect, and gives the
   * client back (closed when it was cancelled or broken, so a late cancel hits nothing). */
  private async attempt(client: pg.PoolClient, params: unknown[], requester: Requester | undefined): Promise<Attempt> {
    let cancelled: Cancelled | undefined;
    let cancelling: Promise<void> | undefined;
    const cancel = (why: Cancelled) => {
      if (cancelled !== undefined) return;
      cancelled = why;
      cancelling = sendCancel(client);
    };
    const timeoutMs = this.options.statementTimeoutMs;
    const timer = timeoutMs > 0 ? setTimeout(() => cancel("timeout"), timeoutMs) : undefined;
    const onLeave = () => {
      if (requester!.left) cancel("disconnect");
    };
    requester?.watch(onLeave);
    let attempt: Attempt;
    try {
      const result = await runResolve(client, params, this.options.preparedStatements);
      const body = result.rows[0]?.body;
      invariant(typeof body === "string", "graphql.resolve returns a JSON document");
      attempt = { kind: "done", body };
    } catch (e) {
      attempt = { kind: "error", error: e as Error, cancelled };
    } finally {
      clearTimeout(timer);
      requester?.unwatch(onLeave);
    }
    if (cancelling) await cancelling;
    // A connection whose session ended must not go back to the pool, where the next request
    // could take it before its end is noticed.
    const broken = attempt.kind === "error" && (attempt.error.severity === undefined || connectionLost(attempt.error));
    client.release(cancelled !== undefined || broken ? true : undefined);
    return attempt;
  }

  /** Whether the database answers and has the function the server calls (graphql.resolve's text sibling). */
  async ready(): Promise<{ database: boolean; extension: boolean }> {
    try {
      const { rows } = await this.pool.query<{ extension: boolean }>(
        "select to_regprocedure('graphql._resolve_text(text, jsonb, text, jsonb)') is not null as extension",
      );
      return { database: true, extension: rows[0]?.extension === true };
    } catch {
      return { database: false, extension: false };
    }
  }

  /** Closes the pool's connections once the statements running or waiting for a connection have
   * finished (pg-pool never serves a waiting one once it is ending), then waits for backends to
   * acknowledge; `timeoutMs` bounds the whole. */
  async end(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.idle() && Date.now() < deadline) await this.nextRelease(deadline - Date.now());
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(deadline - Date.now(), 0));
      timer.unref();
    });
    await Promise.race([this.pool.end(), late]);
    clearTimeout(timer);
    this.options.slots?.forget(this);
  }

  /** Closes the connection idle longest, to make room for another pool's; false when none is
   * idle. pg-pool drops an idle client that reports an error and ends it. */
  closeIdle(): boolean {
    const idle = (this.pool as unknown as { _idle: Array<{ client: pg.Client }> })._idle;
    const oldest = idle[0]?.client;
    if (!oldest) return false;
    oldest.emit("error", new Error("closed to make room for another project's connection"));
    return true;
  }

  private idle(): boolean {
    return this.pool.waitingCount === 0 && this.pool.idleCount === this.pool.totalCount;
  }

  /** Resolves when a connection is given back or closed, or after `ms`. */
  private nextRelease(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.pool.off("release", done).off("remove", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.pool.on("release", done).on("remove", done);
    });
  }

}

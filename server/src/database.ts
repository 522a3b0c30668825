// Execute stage (server side): the statement from resolveStatement → the response body text
// straight from PostgreSQL. The only code here that talks to the database.
import pg from "pg";
import type { JWTPayload } from "jose";
import type { ApiRole } from "./keys";
import { resolveParams, resolveSql, resolveStatementName, type GraphQLPayload } from "./resolveStatement";
import { invariant } from "../../src/util/invariant";

export type Outcome =
  | { kind: "result"; body: string }
  /** The statement failed because of the request (its data, or what its role may do). */
  | { kind: "rejected"; message: string }
  /** The statement failed for a reason the client cannot act on. */
  | { kind: "failed"; message: string; code: string }
  | { kind: "unavailable"; message: string };

// Errors a concurrent `drop extension; create extension` can cause in a statement that looked up
// the old functions (or a deadlock or serialization failure): the statement was rolled back, so
// running it again is safe.
const retryableCodes = new Set(["42883", "3F000", "42P01", "40001", "40P01"]);

function transient(error: { code: string; message: string }): boolean {
  return retryableCodes.has(error.code) || (error.code === "XX000" && /cache lookup failed/.test(error.message));
}
const maxAttempts = 3;

// SQLSTATE classes that mean the request (its query, data or permissions) is at fault.
const requestErrorClasses = ["22", "23", "42", "P0", "2B", "44"];
// Codes that mean the database cannot take the request now: connection failures, shutdown,
// exhausted resources, a missing database, refused login.
const unavailablePrefixes = ["08", "57P", "53", "3D000", "28"];

export class Database {
  readonly pool: pg.Pool;

  constructor(connectionString: string, poolSize: number) {
    // Idle connections are kept: a new backend pays for loading the resolver and reflecting the
    // schema on its first request, and the pool is bounded by its size anyway.
    this.pool = new pg.Pool({ connectionString, max: poolSize, idleTimeoutMillis: 0, application_name: "pg_graphql_server" });
    // An idle client losing its backend must not crash the server; the pool replaces it.
    this.pool.on("error", () => {});
  }

  async resolve(role: ApiRole, claims: JWTPayload, schemas: string[], payload: GraphQLPayload): Promise<Outcome> {
    const params = resolveParams(role, claims, schemas, payload);
    for (let attempt = 1; ; attempt++) {
      try {
        // Named, so each connection parses and plans the statement once.
        const result = await this.pool.query<{ body: string | null }>({ name: resolveStatementName, text: resolveSql, values: params });
        const body = result.rows[0]?.body;
        invariant(typeof body === "string", "graphql.resolve returns a JSON document");
        return { kind: "result", body };
      } catch (e) {
        const error = e as Error & { code?: string; severity?: string };
        if (error.code === undefined || error.severity === undefined || unavailablePrefixes.some((p) => error.code!.startsWith(p))) {
          return { kind: "unavailable", message: error.message };
        }
        if (attempt < maxAttempts && transient({ code: error.code, message: error.message })) continue;
        const code = error.code;
        // A missing resolver is the deployment's fault, not the request's.
        return requestErrorClasses.some((c) => code.startsWith(c)) && !retryableCodes.has(code)
          ? { kind: "rejected", message: error.message }
          : { kind: "failed", message: error.message, code };
      }
    }
  }

  async healthy(): Promise<boolean> {
    try {
      await this.pool.query("select 1");
      return true;
    } catch {
      return false;
    }
  }

  /** Closes the pool's connections, waiting at most `timeoutMs` for backends to acknowledge. */
  async end(timeoutMs = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    await Promise.race([this.pool.end(), late]);
    clearTimeout(timer);
  }
}

// Execute stage (server side): the statement from resolveStatement → the response body text
// straight from PostgreSQL. The only code here that talks to the database.
import pg from "pg";
import type { JWTPayload } from "jose";
import type { ApiRole } from "./keys";
import { resolveParams, resolveSql, type GraphQLPayload } from "./resolveStatement";

export type Outcome =
  | { kind: "result"; body: string }
  | { kind: "statementError"; message: string; code: string | undefined }
  | { kind: "unavailable"; message: string };

// Errors a concurrent `drop extension; create extension` can cause in a statement that looked up
// the old functions: the statement was rolled back, so running it again is safe.
const retryableCodes = new Set(["XX000", "42883", "3F000", "42P01", "40001", "40P01"]);
const maxAttempts = 3;

// SQLSTATE classes that mean the request (its query, data or permissions) is at fault.
const requestErrorClasses = ["22", "23", "42", "P0", "28", "2B", "44"];

export class Database {
  readonly pool: pg.Pool;

  constructor(connectionString: string, poolSize: number) {
    this.pool = new pg.Pool({ connectionString, max: poolSize, application_name: "pg_graphql_server" });
    // An idle client losing its backend must not crash the server; the pool replaces it.
    this.pool.on("error", () => {});
  }

  async resolve(role: ApiRole, claims: JWTPayload, schemas: string[], payload: GraphQLPayload): Promise<Outcome> {
    const params = resolveParams(role, claims, schemas, payload);
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.pool.query<{ body: string | null }>(resolveSql, params);
        const body = result.rows[0]?.body;
        return { kind: "result", body: body ?? '{"data":null,"errors":[{"message":"no result"}]}' };
      } catch (e) {
        const error = e as Error & { code?: string; severity?: string };
        if (error.code === undefined || error.severity === undefined) {
          return { kind: "unavailable", message: error.message };
        }
        if (attempt < maxAttempts && retryableCodes.has(error.code)) continue;
        const requestFault = requestErrorClasses.some((c) => error.code!.startsWith(c));
        return { kind: "statementError", message: error.message, code: requestFault ? error.code : undefined };
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

  end(): Promise<void> {
    return this.pool.end();
  }
}

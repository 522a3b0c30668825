// Execute stage (server side): a failed statement (its PostgreSQL error and whether the server
// cancelled it) → what the request answers. The one place database errors are mapped.

export type Outcome =
  | { kind: "result"; body: string }
  /** The statement failed because of the request (its data, or what its role may do). */
  | { kind: "rejected"; message: string }
  /** Cancelled after running longer than the statement timeout. */
  | { kind: "timeout"; message: string }
  /** Cancelled because the client went away: nobody is left to answer. */
  | { kind: "abandoned" }
  /** The database has no graphql.resolve: pg_graphql is not installed there. */
  | { kind: "missingExtension"; message: string }
  /** The statement failed for a reason the client cannot act on. */
  | { kind: "failed"; message: string; code: string }
  | { kind: "unavailable"; message: string }
  /** Every connection the database may have was busy for longer than a request waits. */
  | { kind: "busy"; message: string };

export type Classified = Outcome | { kind: "retry"; otherwise: Outcome };

export const missingExtensionMessage =
  "pg_graphql is not installed in this database: a superuser must run `create extension pg_graphql cascade`";

// Errors a concurrent `drop extension; create extension` can cause in a statement that looked up
// the old functions (or a deadlock or serialization failure): the statement was rolled back, so
// running it again is safe.
const retryableCodes = new Set(["42883", "3F000", "42P01", "40001", "40P01"]);
// SQLSTATE classes that mean the request (its query, data or permissions) is at fault.
const requestErrorClasses = ["22", "23", "42", "P0", "2B", "44", "54"];
// Codes that mean the database cannot take the request now: connection failures, shutdown,
// exhausted resources, a missing database, refused login.
const unavailablePrefixes = ["08", "57P", "53", "3D000", "28"];

type PgError = Error & { code?: string; severity?: string };

export function classify(error: PgError, cancelled: "timeout" | "disconnect" | undefined, timeoutMs: number): Classified {
  if (cancelled === "disconnect") return { kind: "abandoned" };
  if (cancelled === "timeout") {
    return { kind: "timeout", message: `The request was cancelled: it ran longer than the statement timeout (${timeoutMs} ms)` };
  }
  const code = error.code;
  if (code === undefined || error.severity === undefined || unavailablePrefixes.some((p) => code.startsWith(p))) {
    return { kind: "unavailable", message: error.message };
  }
  // A statement_timeout set on the role, or a cancel sent by an administrator.
  if (code === "57014") return { kind: "timeout", message: `The request was cancelled: ${error.message}` };
  const missing = (code === "3F000" && /"graphql"/.test(error.message)) || (code === "42883" && /graphql\.(_resolve_text|resolve)\b/.test(error.message));
  const settled: Outcome = missing
    ? { kind: "missingExtension", message: missingExtensionMessage }
    : requestErrorClasses.some((c) => code.startsWith(c)) && !retryableCodes.has(code)
      ? { kind: "rejected", message: error.message }
      : { kind: "failed", message: error.message, code };
  const transient = retryableCodes.has(code) || (code === "XX000" && /cache lookup failed/.test(error.message));
  return transient ? { kind: "retry", otherwise: settled } : settled;
}

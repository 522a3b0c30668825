// Project stage: errors of SQL run in a project's database → the API's answers, in one place.
// The caller's SQL failing is the caller's error (400 with PostgreSQL's own words); anything
// that is not a database error stays a fault (500).
import type { DatabaseError } from "pg";
import { ApiError } from "../http/apiError";
import { sqlState } from "../platform/sql";
import { SessionTimeout } from "./projectSession";

/** PostgreSQL's report as psql prints it: severity, SQLSTATE, message, then detail and hint. */
export function postgresReport(error: DatabaseError): string {
  const lines = [`${error.severity ?? "ERROR"}:  ${error.code}: ${error.message}`];
  if (error.detail) lines.push(`DETAIL:  ${error.detail}`);
  if (error.hint) lines.push(`HINT:  ${error.hint}`);
  if (error.position) lines.push(`LINE: position ${error.position}`);
  return lines.join("\n");
}

export function sqlFailure(error: unknown, what = "Failed to run sql query"): Error {
  if (error instanceof SessionTimeout) return new ApiError(400, `${what}: ${error.message}`);
  if (error instanceof ApiError) return error;
  if (sqlState(error) !== undefined) return new ApiError(400, `${what}: ${postgresReport(error as DatabaseError)}`);
  return error as Error;
}

// Project stage: errors of SQL run in a project's database → the API's answers, in one place.
// The caller's SQL failing is the caller's error (400 with PostgreSQL's own words); anything
// that is not a database error stays a fault (500).
import type { DatabaseError } from "pg";
import { invalid } from "../errors/domainError";
import { sqlState } from "../platform/sql";
import { SessionTimeout } from "./projectSession";

/** The line of `text` holding the error's position (1-based, in characters), with a caret under
 * it, as psql shows it. */
function pointAt(text: string, position: number): string[] {
  const before = [...text].slice(0, position - 1).join("");
  const lineNumber = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n") - 1;
  const prefix = `LINE ${lineNumber}: `;
  return [prefix + (text.split("\n")[lineNumber - 1] ?? ""), " ".repeat(prefix.length + column) + "^"];
}

/** PostgreSQL's report as psql prints it: severity, SQLSTATE, message, the line, detail, hint. */
export function postgresReport(error: DatabaseError, text?: string): string {
  const lines = [`${error.severity ?? "ERROR"}:  ${error.code}: ${error.message}`];
  if (error.position && text !== undefined) lines.push(...pointAt(text, Number(error.position)));
  if (error.detail) lines.push(`DETAIL:  ${error.detail}`);
  if (error.hint) lines.push(`HINT:  ${error.hint}`);
  return lines.join("\n");
}

/** The answer for an error of SQL run for a request; `text` is the SQL, when one text ran. */
export function sqlFailure(error: unknown, what = "Failed to run sql query", text?: string): Error {
  if (error instanceof SessionTimeout) return invalid(`${what}: ${error.message}`);
  if (sqlState(error) !== undefined) return invalid(`${what}: ${postgresReport(error as DatabaseError, text)}`);
  return error as Error;
}

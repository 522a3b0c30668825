// Execute stage, the one place a failed request becomes an answer. Input: what a request threw (a
// database error raised through PLV8's SPI, or a JS error); output: pg_graphql's error answer, or
// the error itself again when it must end the statement (a cancel or timeout).
import { errorResponse } from "./response";

/**
 * SQLSTATEs that propagate as errors: query_canceled (a cancel or statement_timeout) and
 * assert_failure, the two a PL/pgSQL `when others` handler does not catch either.
 */
const PROPAGATING = new Set(["57014", "P0004"]);

/** The error answer for `e`; throws `e` again when it is a cancel, timeout or failed assertion. */
export function errorAnswer(e: unknown): string {
  const code = typeof e === "object" && e !== null ? (e as { sqlerrcode?: unknown }).sqlerrcode : undefined;
  if (typeof code === "string" && PROPAGATING.has(code)) throw e;
  // The text an uncaught error would have had as a PostgreSQL error: a database error's message,
  // or the JS error's own description without the generic "Error: " prefix.
  let message = String(e);
  if (message.startsWith("Error: ")) message = message.slice("Error: ".length);
  return errorResponse(message, false);
}

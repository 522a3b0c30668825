// SQL stage: the one function that turns a planner-chosen string (a JSON fragment of the
// response's keys, an enum's labels read from the catalog) into an SQL string literal. Values a
// request gives never pass here: they are parameters.

import { invariant } from "../util/invariant";

/**
 * A string literal meaning the same whatever `standard_conforming_strings` says: with a
 * backslash inside, an escape string (`E'...'`) with the backslashes doubled.
 */
export function quoteLiteral(value: string): string {
  invariant(!value.includes("\0"), "a string literal cannot hold a NUL character");
  const quoted = "'" + value.replace(/'/g, "''") + "'";
  return value.includes("\\") ? "E" + quoted.replace(/\\/g, "\\\\") : quoted;
}

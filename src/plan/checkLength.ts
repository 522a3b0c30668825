// Plan stage: strings longer than a char(n) / varchar(n) column allows are refused before they
// reach the database, in pg_graphql's words.

import type { Column } from "../catalog/model";
import { UserError } from "../document/UserError";
import type { Coerced } from "./coerceInput";

export function checkLength(value: Coerced, column: Column): void {
  const max = column.maxLength;
  if (max === null) return;
  const values = Array.isArray(value) ? value : [value];
  for (const v of values) {
    if (typeof v === "string" && [...v].length > max) {
      throw new UserError(`Invalid input for String type. Maximum character length ${max}`);
    }
  }
}

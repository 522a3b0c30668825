// Page support (pure): a value of a `database/query` row → the text a grid shows (JSON for
// objects and arrays, as the API answered them), sortable as text or number.
import type { CellValue } from "../widgets/DataTable";

export function cellText(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return JSON.stringify(value);
}

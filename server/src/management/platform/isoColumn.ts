// Platform store: a timestamptz column → its value as ISO 8601 text in UTC (the API's date-time).
/** The expression alone, for building JSON or comparing. */
export function isoText(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** The expression as a selected column. */
export function isoColumn(column: string, alias = column): string {
  return `${isoText(column)} as ${alias}`;
}

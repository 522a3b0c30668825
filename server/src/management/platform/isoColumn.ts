// Platform store: a timestamptz column → its value as ISO 8601 text in UTC (the API's date-time).
export function isoColumn(column: string, alias = column): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${alias}`;
}

// Project stage: SQL text on a project session → the rows `database/query` answers, converted as
// the hosted endpoint's postgres-meta converts them: an int8 is a JSON number when it is a safe
// integer and a string otherwise, int8[] and numeric stay strings, dates, timestamps and
// intervals (and their arrays) are PostgreSQL's text, a point its text; several statements
// answer the last result that has rows. Only that endpoint uses it: the platform's own readers
// of a session (advisors, migrations, types) keep the session's conversion.
import pg from "pg";
import type { ProjectSession } from "../tenants/projectSession";

const oid = { int8: 20, date: 1082, timestamp: 1114, timestamptz: 1184, interval: 1186, point: 600, pointArray: 1017 } as const;
const arrayOid = { timestamp: 1115, date: 1182, timestamptz: 1185 } as const;

const asText = (value: string): string => value;
// text[]'s parser (pg-types' list of type ids names no array types).
const textArray: (value: string) => string[] = pg.types.getTypeParser(1009 as Parameters<typeof pg.types.getTypeParser>[0]);

/** An int8 as a number when no digit is lost, else its text. */
export function metaInt8(value: string): number | string {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}

const overrides = new Map<number, (value: string) => unknown>([
  [oid.int8, metaInt8],
  [oid.date, asText],
  [oid.timestamp, asText],
  [oid.timestamptz, asText],
  [oid.interval, asText],
  [oid.point, asText],
  [oid.pointArray, asText],
  [arrayOid.timestamp, textArray],
  [arrayOid.date, textArray],
  [arrayOid.timestamptz, textArray],
]);

export const metaTypes = {
  getTypeParser: (typeOid: number, format?: "text" | "binary") => overrides.get(typeOid) ?? pg.types.getTypeParser(typeOid, format ?? "text"),
};

/** Runs `text` (several statements when there are no parameters) and answers as postgres-meta. */
export async function metaRows(session: ProjectSession, text: string, parameters?: unknown[]): Promise<Record<string, unknown>[]> {
  const values = parameters && parameters.length > 0 ? parameters : undefined;
  const result = (await session.client.query({ text, ...(values ? { values } : {}), types: metaTypes })) as pg.QueryResult | pg.QueryResult[];
  const results = Array.isArray(result) ? result : [result];
  return ([...results].reverse().find((r) => r.rows.length > 0)?.rows ?? []) as Record<string, unknown>[];
}

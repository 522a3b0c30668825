// Logs page stage (pure): a chosen range and filter → the two `logs.all` queries the page runs
// (recent requests; requests and errors per bucket of time) and their rows → the chart's buckets,
// every bucket of the range present.
import { projectApi } from "../api/paths";

export interface LogRange {
  id: string;
  label: string;
  minutes: number;
  /** One bar per this many minutes: a query answers at most 1000 rows. */
  bucketMinutes: number;
}

export const logRanges: LogRange[] = [
  { id: "15m", label: "Last 15 minutes", minutes: 15, bucketMinutes: 1 },
  { id: "1h", label: "Last hour", minutes: 60, bucketMinutes: 1 },
  { id: "6h", label: "Last 6 hours", minutes: 360, bucketMinutes: 1 },
  { id: "24h", label: "Last 24 hours", minutes: 1440, bucketMinutes: 5 },
];

export type ApiFilter = "all" | "graphql" | "management";

export const apiFilters: Array<{ id: ApiFilter; label: string }> = [
  { id: "all", label: "All requests" },
  { id: "graphql", label: "GraphQL data API" },
  { id: "management", label: "Management API" },
];

export interface LogRow {
  time: string;
  method: string | null;
  path: string | null;
  status: number | null;
  duration_ms: number | null;
  role: string | null;
  api: string | null;
}

export interface Bucket {
  /** Start of the bucket (ms since the epoch). */
  start: number;
  requests: number;
  errors: number;
}

const minuteMs = 60_000;

// The filter is one of three fixed words: nothing the user types reaches the SQL.
function where(filter: ApiFilter): string {
  return filter === "all" ? "" : `\n where metadata->>'api' = '${filter}'`;
}

export function recentRequestsSql(filter: ApiFilter, limit = 500): string {
  return `select to_char("timestamp" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as time,
       metadata->'request'->>'method' as method,
       metadata->'request'->>'path' as path,
       (metadata->'response'->>'status_code')::int as status,
       round((metadata->>'duration_ms')::numeric, 1)::float8 as duration_ms,
       metadata->>'role' as role,
       metadata->>'api' as api
  from edge_logs${where(filter)}
 order by "timestamp" desc
 limit ${Math.trunc(limit)}`;
}

export function bucketsSql(range: LogRange, filter: ApiFilter): string {
  return `select to_char(date_bin('${range.bucketMinutes} minutes', "timestamp", timestamptz '2000-01-01 00:00:00+00') at time zone 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS"Z"') as bucket,
       count(*)::int as requests,
       (count(*) filter (where (metadata->'response'->>'status_code')::int >= 400))::int as errors
  from edge_logs${where(filter)}
 group by 1
 order by 1`;
}

export function rangeBounds(range: LogRange, now: number): { start: Date; end: Date } {
  return { start: new Date(now - range.minutes * minuteMs), end: new Date(now) };
}

/** The `logs.all` call for `sql` over the range ending `now`. */
export function logsPath(ref: string, sql: string, range: LogRange, now: number): string {
  const { start, end } = rangeBounds(range, now);
  const query = new URLSearchParams({ sql, iso_timestamp_start: start.toISOString(), iso_timestamp_end: end.toISOString() });
  return projectApi(ref, `/analytics/endpoints/logs.all?${query}`);
}

/** Every bucket from the range's start to `now`, with the counts the query found. */
export function fillBuckets(rows: Array<{ bucket: string; requests: number; errors: number }>, range: LogRange, now: number): Bucket[] {
  const width = range.bucketMinutes * minuteMs;
  const found = new Map(rows.map((r) => [Date.parse(r.bucket), r]));
  const first = Math.floor((now - range.minutes * minuteMs) / width) * width;
  const last = Math.floor(now / width) * width;
  const buckets: Bucket[] = [];
  for (let start = first; start <= last; start += width) {
    const row = found.get(start);
    buckets.push({ start, requests: row?.requests ?? 0, errors: row?.errors ?? 0 });
  }
  return buckets;
}

export function perBucket(range: LogRange): string {
  return range.bucketMinutes === 1 ? "per minute" : `per ${range.bucketMinutes} minutes`;
}

// Logs stage: a project, a range and the caller's SQL → its rows, run by the reader role behind a
// ticket that limits every log view to that project and range; the usage counts the platform
// computes from the same rows; and the rows of branch action runs (workflow_run_logs).
import { randomBytes } from "node:crypto";
import { sqlState, withConnection } from "../platform/sql";
import type { LogsDatabase } from "./logsDatabase";
import type { LogWriter } from "./logWriter";

export const defaultLogsSql = "select id, timestamp, event_message, metadata from edge_logs order by timestamp desc limit 100";
const maxRows = 1000;

export type LogsOutcome = { kind: "rows"; rows: unknown[] } | { kind: "refused"; message: string };

/** The usage buckets of each interval: how far back, and the width of one bucket. */
export const usageIntervals = {
  "15min": { back: "15 minutes", bucket: "minute" },
  "30min": { back: "30 minutes", bucket: "minute" },
  "1hr": { back: "1 hour", bucket: "minute" },
  "3hr": { back: "3 hours", bucket: "hour" },
  "1day": { back: "1 day", bucket: "hour" },
  "3day": { back: "3 days", bucket: "day" },
  "7day": { back: "7 days", bucket: "day" },
} as const;
export type UsageInterval = keyof typeof usageIntervals;

export class LogQueries {
  constructor(
    private readonly db: LogsDatabase,
    private readonly writer: LogWriter,
  ) {}

  /** Runs one SELECT (a single statement: it is a subquery) as the reader role. */
  async run(ref: string, starts: Date, ends: Date, sql: string): Promise<LogsOutcome> {
    await this.writer.flush();
    const ticket = randomBytes(32).toString("hex");
    await this.db.writer.rows("insert into logs_internal.tickets (id, project_ref, starts, ends) values ($1, $2, $3, $4)", [ticket, ref, starts, ends]);
    try {
      return await withConnection(
        this.db.readerUrl,
        async (session) => {
          await session.rows("select pg_catalog.set_config('logs.ticket', $1, false)", [ticket]);
          try {
            const body = sql.trim().replace(/;+\s*$/, "");
            // The parameter makes it one statement over the extended protocol.
            const rows = await session.rows(`select * from (${body}\n) as logs_query limit $1`, [maxRows]);
            return { kind: "rows" as const, rows };
          } catch (e) {
            // Its own session ended (a pg_terminate_backend of itself, say) is the query's failure too.
            if (sqlState(e) === undefined) throw e;
            return { kind: "refused" as const, message: `The logs query failed: ${(e as Error).message}` };
          }
        },
        { applicationName: "pg_graphql_logs_reader" },
      );
    } finally {
      await this.db.writer.rows("delete from logs_internal.tickets where id = $1 or created_at < now() - interval '1 hour'", [ticket]);
    }
  }

  /** A finished branch action run's log, one workflow_run_logs row of the branch per line, in order. */
  async recordRun(ref: string, run: { id: string; step: string; status: string }, lines: string[]): Promise<void> {
    await this.db.writer.rows(
      `insert into logs_internal.events (source, project_ref, timestamp, event_message, metadata)
       select 'workflow_run_logs', $1, now() + (l.n - 1) * interval '1 microsecond', l.line,
              jsonb_build_object('workflow_run', $2::text, 'step', $3::text, 'status', $4::text,
                                 'level', case when l.line like 'failed: %' then 'error' else 'info' end)
         from unnest($5::text[]) with ordinality as l (line, n)`,
      [ref, run.id, run.step, run.status, lines],
    );
  }

  /** Data API requests per bucket over the interval, every bucket present. */
  async apiCounts(ref: string, interval: UsageInterval): Promise<{ timestamp: string; count: number }[]> {
    await this.writer.flush();
    const { back, bucket } = usageIntervals[interval];
    return this.db.writer.rows(
      `select to_char(b at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as timestamp, count(e.id)::int as count
       from generate_series(date_trunc($3, now() - $2::interval), date_trunc($3, now()), ('1 ' || $3)::interval) b
       left join logs_internal.requests e on e.project_ref = $1 and e.api = 'graphql'
         and e.timestamp >= b and e.timestamp < b + ('1 ' || $3)::interval
       group by b order by b`,
      [ref, back, bucket],
    );
  }

  /** Requests to the project's data API in the last 24 hours. */
  async requestCount(ref: string): Promise<number> {
    await this.writer.flush();
    const row = await this.db.writer.one<{ count: number }>(
      `select count(*)::int as count from logs_internal.requests
       where project_ref = $1 and api = 'graphql' and timestamp > now() - interval '24 hours'`,
      [ref],
    );
    return row!.count;
  }

  /** Invocations of one function per bucket, from function_edge_logs (empty: nothing runs functions here). */
  async functionStats(ref: string, functionId: string, interval: UsageInterval): Promise<unknown[]> {
    const { back, bucket } = usageIntervals[interval];
    return this.db.writer.rows(
      `select to_char(date_trunc($4, timestamp) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as timestamp,
         count(*)::int as requests_count,
         count(*) filter (where (metadata->'response'->>'status_code')::int >= 500)::int as server_error_count,
         coalesce(avg((metadata->>'duration_ms')::float8), 0) as avg_execution_time
       from logs_internal.events
       where project_ref = $1 and source = 'function_edge_logs' and metadata->>'function_id' = $2 and timestamp > now() - $3::interval
       group by 1 order by 1`,
      [ref, functionId, back, bucket],
    );
  }
}

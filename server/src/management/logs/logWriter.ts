// Logs stage: answered requests → rows of the logs database, written in batches (one INSERT per
// flush, every `intervalMs` or when `maxBatch` are waiting) so requests never wait on a write.
// Each field travels as one array parameter of plain values: nothing to build or parse per row.
import type { FastifyBaseLogger } from "fastify";
import type { Sql } from "../platform/sql";

/** One answered request naming a project: an edge_logs row. */
export interface RequestEvent {
  projectRef: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  api: "graphql" | "management";
  method: string;
  /** Without the query string. */
  path: string;
  host: string;
  requestId: string;
  clientIp: string;
  statusCode: number;
  durationMs: number;
  /** The role an accepted data API request ran as. */
  role: string | null;
}

export interface LogWriterOptions {
  intervalMs: number;
  maxBatch: number;
  /** Events beyond this many waiting are dropped (the logs database is down or slow). */
  maxPending: number;
  log: FastifyBaseLogger;
}

export class LogWriter {
  private pending: RequestEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private dropped = 0;

  constructor(
    private readonly sql: Sql,
    private readonly options: LogWriterOptions,
  ) {
    this.timer = setInterval(() => void this.flush(), options.intervalMs);
    this.timer.unref();
  }

  add(event: RequestEvent): void {
    if (this.pending.length >= this.options.maxPending) {
      this.dropped += 1;
      return;
    }
    this.pending.push(event);
    if (this.pending.length >= this.options.maxBatch) void this.flush();
  }

  /** Writes what is waiting; resolves when every event added before the call is written. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBatch());
    return this.flushing;
  }

  private async writeBatch(): Promise<void> {
    if (this.dropped > 0) {
      this.options.log.warn({ dropped: this.dropped }, "log events dropped: the logs database is not keeping up");
      this.dropped = 0;
    }
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      await this.sql.rows(
        `insert into logs_internal.requests
           (project_ref, timestamp, api, method, path, host, request_id, client_ip, status_code, duration_ms, role)
         select r, to_timestamp(t / 1000), a, m, p, h, i, c, s, d, o
           from unnest($1::text[], $2::float8[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                       $8::text[], $9::int[], $10::float8[], $11::text[]) as b (r, t, a, m, p, h, i, c, s, d, o)`,
        [
          batch.map((e) => e.projectRef),
          batch.map((e) => e.timestamp),
          batch.map((e) => e.api),
          batch.map((e) => e.method),
          batch.map((e) => e.path),
          batch.map((e) => e.host),
          batch.map((e) => e.requestId),
          batch.map((e) => e.clientIp),
          batch.map((e) => e.statusCode),
          batch.map((e) => e.durationMs),
          batch.map((e) => e.role),
        ],
      );
    } catch (e) {
      this.options.log.error({ err: e, events: batch.length }, "log events could not be written");
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

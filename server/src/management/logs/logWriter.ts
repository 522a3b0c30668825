// Logs stage: log events → rows of the logs database, written in batches (one INSERT per flush,
// every `intervalMs` or when `maxBatch` are waiting) so requests never wait on a write.
import type { FastifyBaseLogger } from "fastify";
import type { Sql } from "../platform/sql";
import type { LogSource } from "./logsSchema";

export interface LogEvent {
  source: LogSource;
  projectRef: string;
  timestamp: Date;
  eventMessage: string;
  metadata: Record<string, unknown>;
}

export interface LogWriterOptions {
  intervalMs: number;
  maxBatch: number;
  /** Events beyond this many waiting are dropped (the logs database is down or slow). */
  maxPending: number;
  log: FastifyBaseLogger;
}

export class LogWriter {
  private pending: LogEvent[] = [];
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

  add(event: LogEvent): void {
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
        `insert into logs_internal.events (source, project_ref, timestamp, event_message, metadata)
         select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::jsonb[])`,
        [
          batch.map((e) => e.source),
          batch.map((e) => e.projectRef),
          batch.map((e) => e.timestamp.toISOString()),
          batch.map((e) => e.eventMessage),
          batch.map((e) => JSON.stringify(e.metadata)),
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

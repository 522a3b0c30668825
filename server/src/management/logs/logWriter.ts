// Logs stage: answered requests → rows of the logs database, written in batches (one COPY per
// flush, every `intervalMs` or when `maxBatch` are waiting) so requests never wait on a write.
// A batch travels as COPY's text format, one line per request: the cheapest way into a table for
// both the server and the database, with no JSON built or parsed.
import type { FastifyBaseLogger } from "fastify";
import type { SqlPool } from "../platform/sql";

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

const copySpecial = /[\\\t\n\r]/;
const copyEscapes: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** A text field in COPY's text format: backslash, tab, line feed and carriage return escaped. */
function copyText(value: string): string {
  return copySpecial.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => copyEscapes[c]!) : value;
}

function copyLine(e: RequestEvent): string {
  return (
    copyText(e.projectRef) + "\t" + new Date(e.timestamp).toISOString() + "\t" + e.api + "\t" + copyText(e.method) + "\t" +
    copyText(e.path) + "\t" + copyText(e.host) + "\t" + copyText(e.requestId) + "\t" + copyText(e.clientIp) + "\t" +
    e.statusCode + "\t" + e.durationMs + "\t" + (e.role === null ? "\\N" : copyText(e.role)) + "\n"
  );
}

export class LogWriter {
  private pending: RequestEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private dropped = 0;

  constructor(
    private readonly sql: Pick<SqlPool, "copyFrom">,
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
      await this.sql.copyFrom(
        `copy logs_internal.requests
           (project_ref, timestamp, api, method, path, host, request_id, client_ip, status_code, duration_ms, role)
         from stdin`,
        batch.map(copyLine).join(""),
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

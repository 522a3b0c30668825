// Data API stage: one project server's connection budget in this process (see
// servers/connectionLimits.ts) → room for each new data API connection, shared by every
// project's pool on that server. Under the budget a connection opens at once; at the budget the
// connection idle longest in the pool used least recently is closed to make room (one
// connection, not the whole pool), and with none idle the request waits, in order of arrival,
// for the next connection to be released (which is then closed for it) or to close, until the
// wait runs out (ConnectionsBusy: the request answers 503).
import { ConnectionsBusy, type ConnectionSlots, type Database } from "../../database";

interface Waiter {
  grant: (free: () => void) => void;
  timer: NodeJS.Timeout;
}

export interface ConnectionCounts {
  /** Connections open or opening. */
  open: number;
  waiting: number;
  limit: number;
}

export class ServerConnections implements ConnectionSlots {
  private open = 0;
  private readonly waiting: Waiter[] = [];
  /** Pools in order of last use (a Map keeps insertion order; a use re-inserts). */
  private readonly byUse = new Map<Database, true>();

  constructor(
    readonly limit: number,
    private readonly waitMs: number,
  ) {}

  get counts(): ConnectionCounts {
    return { open: this.open, waiting: this.waiting.length, limit: this.limit };
  }

  take(requester: Database): Promise<() => void> {
    if (this.open < this.limit) {
      this.open += 1;
      return Promise.resolve(this.freer());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new ConnectionsBusy(`All ${this.limit} connections this server process may hold on the project's database server stayed busy for ${this.waitMs} ms; try again`));
        }, this.waitMs),
      };
      this.waiting.push(waiter);
      this.makeRoom(requester);
    });
  }

  used(database: Database): void {
    this.byUse.delete(database);
    this.byUse.set(database, true);
  }

  forget(database: Database): void {
    this.byUse.delete(database);
  }

  released(database: Database): void {
    if (this.waiting.length > 0) database.closeIdle();
  }

  /** Closes one idle connection of the pool used least recently (never the requester's). */
  private makeRoom(requester: Database): void {
    for (const database of this.byUse.keys()) {
      if (database !== requester && database.closeIdle()) return;
    }
  }

  /** Frees the room once: handed straight to the first waiter, if any. */
  private freer(): () => void {
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const next = this.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.grant(this.freer());
      } else this.open -= 1;
    };
  }
}

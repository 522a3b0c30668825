// Provision stage: project operations (create, branch, delete, pause, restore) → run at most
// `concurrency` at a time per project server in this process, the rest waiting in order of
// arrival; one that waited past the deadline is refused with 503 and never runs. Each running
// operation holds a few connections (its lock, door sessions, a login), so the bound keeps a
// burst of requests within the connections the platform keeps for its own work.
import { unavailable } from "../errors/domainError";

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

class Lane {
  running = 0;
  readonly waiting: Waiter[] = [];
}

export class ProvisionQueue {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    readonly concurrency: number,
    private readonly waitMs: number,
  ) {}

  /** Runs `work` once a place on `server` is free, or throws 503 after the wait. */
  async run<T>(server: string, work: () => Promise<T>): Promise<T> {
    const lane = this.lane(server);
    if (lane.running >= this.concurrency) await this.place(lane);
    else lane.running += 1;
    try {
      return await work();
    } finally {
      const next = lane.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.start();
      } else lane.running -= 1;
    }
  }

  /** Operations running and waiting on a server (for the platform's own figures). */
  load(server: string): { running: number; waiting: number } {
    const lane = this.lanes.get(server);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }

  private lane(server: string): Lane {
    let lane = this.lanes.get(server);
    if (!lane) {
      lane = new Lane();
      this.lanes.set(server, lane);
    }
    return lane;
  }

  /** Waits for a running operation to hand its place over (the count stays as it is). */
  private place(lane: Lane): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          lane.waiting.splice(lane.waiting.indexOf(waiter), 1);
          reject(unavailable(`The project server is busy with ${lane.running} other project operations, and this one waited ${Math.round(this.waitMs / 1000)} s for its turn; try again later`));
        }, this.waitMs),
      };
      lane.waiting.push(waiter);
    });
  }
}

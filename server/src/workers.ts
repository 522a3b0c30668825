// Server lifecycle: `--workers N` → N worker processes (Node's cluster module) sharing the port,
// supervised by this primary process: it prints the banner once all are listening, replaces a
// worker that dies, aggregates their metrics, and on SIGTERM/SIGINT lets each worker drain.
import cluster, { type Worker } from "node:cluster";
import type { ServerConfig } from "./config";
import { answerClusterMetrics, serveClusterMetrics } from "./metrics";

const readyMessage = "pg_graphql:ready";

export interface WorkerReady {
  kind: typeof readyMessage;
  baseUrl: string;
  warnings: string[];
}

/** Called in a worker once it listens. */
export function reportReady(baseUrl: string, warnings: string[]): void {
  answerClusterMetrics();
  const message: WorkerReady = { kind: readyMessage, baseUrl, warnings };
  process.send?.(message);
}

/** `banner`: what the primary prints once every worker listens (after the first line). */
export async function superviseWorkers(config: Pick<ServerConfig, "workers">, banner: (baseUrl: string) => Promise<string>, title = "pg_graphql server"): Promise<void> {
  serveClusterMetrics();
  let stopping = false;
  const waiting = new Set<Worker>();
  const fork = () => {
    const worker = cluster.fork();
    waiting.add(worker);
    return worker;
  };
  const first = new Promise<WorkerReady>((resolve) => {
    cluster.on("message", (worker, message: WorkerReady) => {
      if (message?.kind !== readyMessage || !waiting.delete(worker)) return;
      if (waiting.size === 0) resolve(message);
    });
  });
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    if (waiting.has(worker)) {
      // It failed before listening (its error is on stderr): another would fail the same way.
      process.stderr.write(`worker ${worker.process.pid} failed to start; stopping\n`);
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGKILL");
      process.exit(1);
    }
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    fork();
  });
  for (let i = 0; i < config.workers; i++) fork();

  const ready = await first;
  process.stdout.write(`${title} is running (${config.workers} workers)\n${await banner(ready.baseUrl)}\n`);
  for (const warning of ready.warnings) process.stderr.write(`\n*** WARNING: ${warning}\n`);

  const stop = (signal: NodeJS.Signals) => {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    if (stopping) {
      for (const w of workers) w.process.kill("SIGKILL");
      process.exit(130);
    }
    stopping = true;
    process.stderr.write(`\n${signal}: draining ${workers.length} workers\n`);
    let left = workers.length;
    if (left === 0) process.exit(0);
    for (const w of workers) {
      w.once("exit", () => {
        if (--left === 0) process.exit(0);
      });
      w.process.kill("SIGTERM");
    }
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

// Observability: the server's Prometheus metrics (prom-client, default registry) → the text
// `/metrics` answers. With several workers the primary process aggregates every worker's registry
// (AggregatorRegistry over the cluster's IPC channel), so any worker answers for all of them.
import cluster from "node:cluster";
import { AggregatorRegistry, Counter, Gauge, Histogram, collectDefaultMetrics, register } from "prom-client";
import type { FastifyInstance } from "fastify";
import type pg from "pg";

export const requests = new Counter({
  name: "pg_graphql_http_requests_total",
  help: "GraphQL requests answered, by HTTP status and operation type",
  labelNames: ["status", "operation"] as const,
});
export const latency = new Histogram({
  name: "pg_graphql_http_request_duration_seconds",
  help: "Time from receiving a GraphQL request to sending its answer",
  labelNames: ["operation"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});
export const statementTimeouts = new Counter({
  name: "pg_graphql_statement_timeouts_total",
  help: "Statements cancelled for running past the statement timeout",
});
export const errors = new Counter({
  name: "pg_graphql_errors_total",
  help: "Requests that failed for a reason other than the request itself, by kind",
  labelNames: ["kind"] as const,
});

// Pools of every app in this process (tests run several), read when metrics are collected.
const pools = new Map<pg.Pool, string>();
new Gauge({
  name: "pg_graphql_pool_connections",
  help: "Database connections by pool (primary or replica) and state",
  labelNames: ["pool", "state"] as const,
  collect() {
    this.reset();
    for (const [pool, name] of pools) {
      this.inc({ pool: name, state: "in_use" }, pool.totalCount - pool.idleCount);
      this.inc({ pool: name, state: "idle" }, pool.idleCount);
      this.inc({ pool: name, state: "waiting" }, pool.waitingCount);
    }
  },
});
collectDefaultMetrics();

export function watchPool(pool: pg.Pool, name: "primary" | "replica"): () => void {
  pools.set(pool, name);
  return () => pools.delete(pool);
}

const metricsRequest = "pg_graphql:metrics";

/** In the primary process: answers workers asking for the metrics of all workers. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: { kind?: string; id?: number }) => {
    if (message?.kind !== metricsRequest) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ kind: metricsRequest, id: message.id, text }),
      (e: Error) => worker.send({ kind: metricsRequest, id: message.id, error: e.message }),
    );
  });
}

/** In a worker: lets the primary's aggregator read this worker's registry (prom-client adds its
 * IPC listener when an AggregatorRegistry is made). */
export function answerClusterMetrics(): void {
  new AggregatorRegistry();
}

let nextId = 0;
function askPrimary(): Promise<string> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const onMessage = (message: { kind?: string; id?: number; text?: string; error?: string }) => {
      if (message?.kind !== metricsRequest || message.id !== id) return;
      process.off("message", onMessage);
      if (message.text !== undefined) resolve(message.text);
      else reject(new Error(message.error ?? "no metrics"));
    };
    process.on("message", onMessage);
    process.send!({ kind: metricsRequest, id });
  });
}

export async function metricsRoute(scope: FastifyInstance): Promise<void> {
  scope.get("/metrics", async (_request, reply) => {
    const text = cluster.isWorker ? await askPrimary() : await register.metrics();
    return reply.type(register.contentType).send(text);
  });
}

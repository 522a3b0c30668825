// Bench entry: a graphql.resolve backend's memory alone (`make -C bench memory`), a minute or two
// instead of the whole bench. Input: BENCH_MEMORY_REQUESTS (default 1000), BENCH_MEMORY_LEAK
// (default 1: also run to 10,000), BENCH_MEMORY_CPU (requests timed for backend CPU, default
// 3000; 0 skips), BENCH_MEMORY_V8_FLAGS (plv8.v8_flags for the run). Output: the "Memory per
// backend" figures of the full bench for graphql.resolve and the hand-written SQL, the backend
// CPU per warm request of both, then where each backend's memory goes (private memory per
// mapping, PostgreSQL's memory contexts, V8's heap), read from a second pair of backends that
// run the same requests under a superuser session (the views need one).
import { processCpuMs } from "./processCpu";
import pg from "pg";
import { backendMemory, installStatementStats } from "./backendStats";
import { connectionUrl, startCluster, stopCluster } from "./cluster";
import { connect, measureMemory, timedAsUser } from "./coldStart";
import { createDataset, scaleNamed } from "./dataset";
import { engineLabels } from "./engines";
import { prepareEngine } from "./prepare";
import { benchQueries, type BenchQuery, type Prepared } from "./queries";
import { privateByMapping, contextTotals } from "./memoryBreakdown";

const requests = Number(process.env.BENCH_MEMORY_REQUESTS ?? 1000);
const windowCalls = 128;
const cpuRequests = Number(process.env.BENCH_MEMORY_CPU ?? 3000);
const leakCheck = (process.env.BENCH_MEMORY_LEAK ?? "1") !== "0";
const v8Flags = process.env.BENCH_MEMORY_V8_FLAGS;
const log = (msg: string) => process.stderr.write(`[memory ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const mib = (n: number) => n.toFixed(1);

async function breakdown(url: string, prepared: Prepared | undefined, reads: BenchQuery[]): Promise<void> {
  const client = await connect(url);
  const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
  const request = async (i: number) => {
    const q = reads[i % reads.length]!;
    const sql = prepared ? "select graphql.resolve($1)::text as text" : q.sql;
    await timedAsUser(client, sql, prepared ? [q.graphql("pg_graphql", prepared)] : []);
  };
  for (let i = 0; i < requests; i++) await request(i);
  const total = backendMemory(pid);
  // One reading depends on where it falls between collections: the spread over the next calls.
  const window: number[] = [];
  for (let i = 0; i < windowCalls; i++) {
    await request(requests + i);
    window.push(backendMemory(pid).privateMiB);
  }
  const mappings = privateByMapping(pid);
  const contexts = contextTotals((await client.query<ContextRow>(contextSql)).rows);
  const heap = prepared ? (await client.query<{ info: HeapInfo[] }>("select plv8_info() as info")).rows[0]!.info : undefined;
  await client.end();
  const label = prepared ? "graphql.resolve" : "hand-written SQL";
  const mean = window.reduce((a, b) => a + b, 0) / window.length;
  process.stdout.write(
    `\n## ${label}, superuser session, after ${requests} requests: private ${mib(total.privateMiB)} MiB, RSS ${mib(total.rssMiB)} MiB; ` +
      `over the next ${windowCalls}: private ${mib(Math.min(...window))} to ${mib(Math.max(...window))}, mean ${mib(mean)} MiB\n\n`,
  );
  process.stdout.write("Private MiB by mapping:\n");
  for (const m of mappings.slice(0, 12)) process.stdout.write(`  ${mib(m.privateKiB / 1024).padStart(6)}  ${m.name}\n`);
  process.stdout.write("\nMemory contexts (MiB, with their children):\n");
  for (const c of contexts) process.stdout.write(`  ${mib(c.totalBytes / 2 ** 20).padStart(6)}  ${"  ".repeat(c.level)}${c.name}${c.ident ? ` (${c.ident})` : ""}\n`);
  for (const h of heap ?? []) {
    process.stdout.write(`\nV8 heap of ${h.user}: ${mib(h.total_physical_size / 2 ** 20)} MiB resident, ${mib(h.used_heap_size / 2 ** 20)} MiB used, ${mib(h.malloced_memory / 2 ** 20)} MiB malloc'd\n`);
    for (const [space, f] of Object.entries(h.spaces)) {
      if (f.physical > 0) process.stdout.write(`  ${mib(f.physical / 2 ** 20).padStart(6)}  ${space} (${mib(f.used / 2 ** 20)} used)\n`);
    }
  }
}

/** Warm-call cost: the backend's CPU per request over `cpuRequests` mixed reads, after a warm-up. */
async function cpuPerRequest(url: string, prepared: Prepared | undefined, reads: BenchQuery[]): Promise<number> {
  const client = await connect(url);
  const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
  const request = async (i: number) => {
    const q = reads[i % reads.length]!;
    await timedAsUser(client, prepared ? "select graphql.resolve($1)::text as text" : q.sql, prepared ? [q.graphql("pg_graphql", prepared)] : []);
  };
  for (let i = 0; i < 300; i++) await request(i);
  const before = processCpuMs(pid);
  for (let i = 0; i < cpuRequests; i++) await request(i);
  const ms = (processCpuMs(pid) - before) / cpuRequests;
  await client.end();
  return ms;
}

interface HeapInfo {
  user: string;
  total_physical_size: number;
  used_heap_size: number;
  malloced_memory: number;
  spaces: Record<string, { size: number; used: number; physical: number }>;
}

interface ContextRow {
  name: string;
  ident: string | null;
  level: number;
  total_bytes: string;
}
const contextSql = "select name, ident, level, total_bytes from pg_backend_memory_contexts";

async function main(): Promise<void> {
  const cluster = startCluster();
  try {
    const bootstrap = new pg.Client({ connectionString: connectionUrl(cluster, "postgres") });
    await bootstrap.connect();
    await bootstrap.query("create database bench");
    await bootstrap.end();
    const admin = await connect(connectionUrl(cluster, "bench"));
    log("generating the dataset");
    await createDataset(admin, scaleNamed("default"));
    await installStatementStats(admin);
    await admin.query("create extension if not exists pg_graphql cascade");
    await admin.query("grant usage on schema graphql to anon, authenticated, service_role");
    // For trying V8 flags without a rebuild: they apply when V8 starts in a new backend.
    if (v8Flags) {
      const { rows } = await admin.query<{ ddl: string }>("select format('alter database bench set plv8.v8_flags = %L', $1::text) as ddl", [v8Flags]);
      await admin.query(rows[0]!.ddl);
    }
    const authUrl = connectionUrl(cluster, "bench", "authenticator");
    const user = await connect(authUrl);
    const prepared = await prepareEngine({ kind: "pgbench", id: "resolve", label: engineLabels.resolve, dialect: "pg_graphql" }, "pg_graphql", user);
    await user.end();
    const reads = benchQueries.filter((q) => q.kind === "read");
    const names = reads.map((q) => q.name).join(", ");
    if (leakCheck) {
      log("measuring as the bench does");
      for (const [label, mode] of [["graphql.resolve", "resolve"], ["hand-written SQL", "sql"]] as const) {
        const f = await measureMemory(label, authUrl, mode === "resolve" ? prepared : undefined, mode, reads);
        process.stdout.write(
          `${label} (${names} in turn): private after 1 ${mib(f.after1.privateMiB)}, after 1,000 ${mib(f.after1000.privateMiB)}, ` +
            `after 10,000 ${mib(f.after10000.privateMiB)} MiB; RSS after 1,000 ${mib(f.after1000.rssMiB)} MiB\n`,
        );
      }
    }
    if (cpuRequests > 0) {
      log("backend CPU per request");
      for (let round = 0; round < 3; round++) {
        const resolveMs = await cpuPerRequest(authUrl, prepared, reads);
        const sqlMs = await cpuPerRequest(authUrl, undefined, reads);
        process.stdout.write(`backend CPU per request over ${cpuRequests} (round ${round + 1}): graphql.resolve ${resolveMs.toFixed(3)} ms, hand-written SQL ${sqlMs.toFixed(3)} ms\n`);
      }
    }
    log("breakdown");
    const superUrl = connectionUrl(cluster, "bench");
    await breakdown(superUrl, prepared, reads);
    await breakdown(superUrl, undefined, reads);
    await admin.end();
  } finally {
    stopCluster(cluster);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    log(`failed: ${(e as Error).stack ?? String(e)}`);
    process.exit(2);
  },
);

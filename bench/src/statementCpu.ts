// Bench entry: backend CPU per request of the HTTP engines' statements. Input: environment knobs
// (STATEMENT_REQUESTS, STATEMENT_ROUNDS, BENCH_QUERIES). Output: for each bench query, the CPU µs
// one backend spends per request (`/proc/PID/stat` of the backend of a `pg` client sending each
// statement STATEMENT_REQUESTS times; the median of STATEMENT_ROUNDS rounds, statements in turns)
// on: the HTTP floor's request as it sends it (simple protocol, role switch and claims), the same
// SQL prepared, our server's statement, its settings part alone, and `graphql._resolve_text`
// alone. It tells the call layers from the resolver, which "DB ms/req" (execution time, planning
// left out) does not.
import { processCpuMs } from "./processCpu";
import pg from "pg";
import { startBenchDatabase } from "./benchDatabase";
import { connectionUrl, stopCluster } from "./cluster";
import { benchClaims } from "./indb";
import { median } from "./load";
import { benchQueries, type BenchQuery } from "./queries";
import { resolveParams, resolveSql } from "../../server/src/resolveStatement";

const requests = Number(process.env.STATEMENT_REQUESTS ?? 1500);
const rounds = Number(process.env.STATEMENT_ROUNDS ?? 5);
const queryNames = (process.env.BENCH_QUERIES ?? "nested,shallow").split(",");

const log = (msg: string) => process.stderr.write(`[statement-cpu ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

// The server's statement with the resolver call replaced by a check that reads every parameter,
// so the plan and the settings stay those of the whole statement.
const settingsOnlySql = resolveSql.replace(
  /select graphql\._resolve_text\([^]*\) as body/,
  "select settings.role is not null and $6::text is not null and $7::jsonb is null and $8::text is null as body",
);
if (settingsOnlySql === resolveSql) throw new Error("the resolve call was not found in the server's statement");

type Statement = (client: pg.Client) => Promise<unknown>;

function statements(q: BenchQuery): Record<string, Statement> {
  const graphql = q.graphql("pg_graphql", { nodeId: "", page49Cursor: "" });
  const params = resolveParams("authenticated", JSON.parse(benchClaims), ["public"], { query: graphql, variables: null, operationName: null });
  return {
    "HTTP floor's request (simple protocol)": (c) =>
      c.query(`begin; set local role authenticated; select set_config('request.jwt.claims', ${literal(benchClaims)}, true); ${q.sql}; commit`),
    "hand-written SQL alone, prepared": (c) => c.query({ name: `floor_${q.name}`, text: q.sql }),
    "our server's statement, prepared": (c) => c.query({ name: `ours_${q.name}`, text: resolveSql, values: params }),
    "its settings alone (no resolver call)": (c) => c.query({ name: `settings_${q.name}`, text: settingsOnlySql, values: params }),
    "graphql._resolve_text alone": (c) =>
      c.query({ name: `alone_${q.name}`, text: "select graphql._resolve_text($1, '{}'::jsonb, null)", values: [graphql] }),
  };
}

async function main(): Promise<void> {
  const cluster = await startBenchDatabase(log);
  try {
    const client = new pg.Client({ connectionString: connectionUrl(cluster, "bench") });
    await client.connect();
    const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    const lines = ["| Query | Statement | backend CPU µs/request |", "| --- | --- | --- |"];
    for (const name of queryNames) {
      const q = benchQueries.find((b) => b.name === name);
      if (!q) throw new Error(`unknown bench query ${name}`);
      const runs = Object.entries(statements(q));
      for (const [, run] of runs) for (let i = 0; i < 50; i++) await run(client);
      const figures = new Map<string, number[]>();
      for (let round = 0; round < rounds; round++) {
        for (const [label, run] of runs) {
          const before = processCpuMs(pid);
          for (let i = 0; i < requests; i++) await run(client);
          figures.set(label, [...(figures.get(label) ?? []), ((processCpuMs(pid) - before) * 1000) / requests]);
        }
      }
      for (const [label, us] of figures) {
        const line = `| ${q.title} | ${label} | ${median(us).toFixed(0)} |`;
        log(`${line} rounds: ${us.map((x) => x.toFixed(0)).join(" ")}`);
        lines.push(line);
      }
    }
    await client.end();
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    stopCluster(cluster);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});

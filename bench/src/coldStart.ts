// Bench stage: backend life cycle. Input: the authenticator's URL and prepared query texts.
// Output: the time of the first graphql.resolve in a new backend and after a DDL change, and a
// backend's memory after 1, 1,000 and 10,000 requests.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { backendMemory, type Memory } from "./backendStats";
import { benchClaims } from "./indb";
import { benchQueries, type BenchQuery, type Prepared } from "./queries";
import { median } from "./load";
import type { ColdStart, MemoryFigures } from "./report";
import { codeCacheProbe } from "./machineFactors";
import { settle } from "./settle";

const samples = 5;

export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  // The connection's own start-up is not what is measured.
  await client.query("select 1");
  return client;
}

/** Times one statement run as `authenticated`; the role switch around it is not counted. */
export async function timedAsUser(client: pg.Client, sql: string, params: unknown[]): Promise<{ ms: number; text: string }> {
  await client.query("begin");
  await client.query("set local role authenticated");
  await client.query("select set_config('request.jwt.claims', $1, true)", [benchClaims]);
  const t0 = performance.now();
  const { rows } = await client.query<{ text: string | null }>(sql, params);
  const ms = performance.now() - t0;
  await client.query("commit");
  return { ms, text: rows[0]?.text ?? "" };
}

async function timedResolve(client: pg.Client, query: string): Promise<number> {
  const { ms, text } = await timedAsUser(client, "select graphql.resolve($1)::text as text", [query]);
  if (text.includes('"errors"')) throw new Error(`resolve answered errors: ${text.slice(0, 300)}`);
  return ms;
}

function nestedQuery(prepared: Prepared): string {
  return benchQueries.find((q) => q.name === "nested")!.graphql("pg_graphql", prepared);
}

const debug = (msg: string) => {
  if (process.env.BENCH_DEBUG) process.stderr.write(`[cold start] ${msg}\n`);
};

/** `adminUrl`: a superuser's, for reading the new backends' code cache counters. */
export async function measureColdStart(url: string, adminUrl: string, admin: pg.Client, prepared: Prepared): Promise<ColdStart> {
  const query = nestedQuery(prepared);
  const warm: number[] = [];
  // New backends until the median is known to 10% (at least 5, at most 15).
  const first = await settle(async () => {
    debug("new backend");
    const client = await connect(url);
    debug("connected");
    const ms = await timedResolve(client, query);
    debug(`first call ${ms.toFixed(1)} ms`);
    for (let j = 0; j < 5; j++) warm.push(await timedResolve(client, query));
    await client.end();
    return ms;
  }, { min: samples, max: 3 * samples, tolerance: 0.1 });
  // The same again, with the language handler started first by an empty DO block, to split the
  // cold start into starting V8 and loading the bundle plus reflecting the schema.
  const v8Start: number[] = [];
  const afterV8: number[] = [];
  for (let i = 0; i < samples; i++) {
    const client = await connect(url);
    try {
      const t0 = performance.now();
      await client.query("do $$ $$ language plv8");
      v8Start.push(performance.now() - t0);
      afterV8.push(await timedResolve(client, query));
    } catch (e) {
      debug(`no split: ${(e as Error).message}`);
    } finally {
      await client.end();
    }
  }
  const afterDdl: number[] = [];
  const client = await connect(url);
  await timedResolve(client, query);
  for (let i = 0; i < samples; i++) {
    debug(`DDL ${i}`);
    await admin.query("create table bench_ddl_probe (id integer primary key)");
    afterDdl.push(await timedResolve(client, query));
    await admin.query("drop table bench_ddl_probe");
    await timedResolve(client, query);
  }
  await client.end();
  const codeCache = await codeCacheProbe(adminUrl, (c) => timedResolve(c, query));
  return {
    newBackendMs: first.median,
    spread: { low: first.low, high: first.high, n: first.n },
    codeCache,
    v8StartMs: v8Start.length > 0 ? median(v8Start) : undefined,
    bundleAndReflectionMs: afterV8.length > 0 ? median(afterV8) : undefined,
    afterDdlMs: median(afterDdl),
    warmMs: median(warm),
  };
}

/** `reads` are the read queries to cycle through (those the engine answered correctly). */
export async function measureMemory(label: string, url: string, prepared: Prepared | undefined, mode: "resolve" | "sql", reads: BenchQuery[]): Promise<MemoryFigures> {
  if (reads.length === 0) throw new Error("no read query to measure memory with");
  const client = await connect(url);
  const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
  const request = async (i: number) => {
    const q = reads[i % reads.length]!;
    if (mode === "resolve") await timedResolve(client, q.graphql("pg_graphql", prepared!));
    else await timedAsUser(client, q.sql, []);
  };
  await request(0);
  const after1: Memory = backendMemory(pid);
  for (let i = 1; i < 1000; i++) await request(i);
  const after1000: Memory = backendMemory(pid);
  // The leak check: a backend that keeps answering must not keep growing.
  for (let i = 1000; i < 10_000; i++) await request(i);
  const after10000: Memory = backendMemory(pid);
  await client.end();
  return { label, after1, after1000, after10000 };
}

// Bench stage: the opt-in features. Input: the bench database (dataset and extension), the load
// knobs. Output: req/s by client count of a relation filter over HTTP (our server against
// PostGraphile v5 with postgraphile-plugin-connection-filter), and of an upsert and a nested
// insert in the database (graphql.resolve against the hand-written SQL returning the same answer
// as jsonb), each answer checked before any timing; the schema's switches are put back after.
import { isDeepStrictEqual } from "node:util";
import type pg from "pg";
import { canonicalFromGraphql, canonicalValue, firstDifference, type Json } from "./canonical";
import { waitUntilQuiet, type Scale } from "./dataset";
import { startOurs, startPostgraphile, type HttpEngine } from "./engines";
import {
  featureSchemaComment, nestedFloorSetup, nestedFloorSql, nestedGraphql, nestedOneStatementSql, relationFilterQuery, upsertFloorSql, upsertGraphql,
  upsertVariablesSql,
} from "./featureQueries";
import { jsonbAnswer, resolveScript, sqlAnswer, sqlScript } from "./indb";
import { median, wrkRun, type Bounds, type PgTarget, type RunFigures } from "./load";
import { measurePairInRounds, type PairRounds } from "./featureRounds";
import { spread } from "./nestedRatios";
import type { Cell } from "./report";
import { requestBody, runOnce } from "./transport";

/** Req/s (and latencies) by client count, of two ways of doing the same. */
export interface FeaturePair {
  mine: Map<number, Cell>;
  theirs: Map<number, Cell>;
  /** Another way, shown beside and not judged (the nested insert as one statement). */
  beside?: Map<number, Cell>;
  /** In the database: the ratios taken within interleaved rounds, by client count. */
  rounds?: Map<number, PairRounds>;
}

export interface FeatureFigures {
  /** Our server (mine) and PostGraphile v5 with connection-filter (theirs), over HTTP. */
  relationFilter: FeaturePair | undefined;
  /** graphql.resolve (mine) and the hand-written SQL (theirs), in the database. */
  upsert: FeaturePair | undefined;
  nested: FeaturePair | undefined;
  wrong: string[];
}

export interface FeatureOptions {
  admin: pg.Client;
  /** The authenticator's connection (answers are checked as the API role). */
  user: pg.Client;
  authUrl: string;
  pgTarget: PgTarget;
  scale: Scale;
  clients: number[];
  runs: number;
  seconds: number;
  warmup: number;
  workDir: string;
  /** The postmaster's pid: the in-database rounds read their backends' CPU time from it. */
  postmaster?: number;
  log: (line: string) => void;
}

const ports = { ours: 5486, postgraphile: 5487 };
const noPrepared = { nodeId: "", page49Cursor: "" };
const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The rows the section writes removed, and the sequences put back. */
async function resetWrites(admin: pg.Client, scale: Scale): Promise<void> {
  await waitUntilQuiet(admin);
  await admin.query(`delete from blog_post where id > ${scale.posts}; delete from blog where id > ${scale.blogs};
    select setval('blog_post_id_seq', ${scale.posts}), setval('blog_id_seq', ${scale.blogs}), setval('account_id_seq', ${scale.accounts})`);
}

/** Over HTTP: a warm-up run, then the median of the timed runs, per client count. */
async function timed(o: FeatureOptions, run: (clients: number, bounds: Bounds) => RunFigures): Promise<Map<number, Cell>> {
  const out = new Map<number, Cell>();
  for (const clients of o.clients) {
    run(clients, { seconds: o.warmup, maxRequests: 2_000_000 });
    const figures: RunFigures[] = [];
    for (let i = 0; i < o.runs; i++) figures.push(run(clients, { seconds: o.seconds, maxRequests: 2_000_000 }));
    out.set(clients, {
      rps: median(figures.map((f) => f.rps)),
      p50Ms: median(figures.map((f) => f.p50Ms)),
      p99Ms: median(figures.map((f) => f.p99Ms)),
      failures: figures.reduce((n, f) => n + f.failures, 0),
    });
  }
  return out;
}

function logPair(o: FeatureOptions, name: string, pair: FeaturePair, mine: string, theirs: string): void {
  for (const c of o.clients) {
    const m = pair.mine.get(c)!;
    const t = pair.theirs.get(c)!;
    o.log(`${name.padEnd(9)} @${c}: ${mine} ${m.rps.toFixed(0)} req/s, ${theirs} ${t.rps.toFixed(0)} req/s${m.failures + t.failures > 0 ? `, ${m.failures + t.failures} failed` : ""}`);
  }
}

async function relationFilter(o: FeatureOptions, engines: HttpEngine[], wrong: string[]): Promise<FeaturePair | undefined> {
  o.log("features: starting our server and PostGraphile v5 with connection-filter");
  const ours = await startOurs(o.authUrl, ports.ours);
  engines.push(ours);
  const theirs = await startPostgraphile(5, o.authUrl, ports.postgraphile, true);
  engines.push(theirs);
  const q = relationFilterQuery;
  const expected = canonicalValue((await sqlAnswer(o.user, q.sql)) as Json);
  if (!Array.isArray(expected) || expected.length !== 20) wrong.push(`relation filter: the hand-written SQL answered ${JSON.stringify(expected).slice(0, 200)}`);
  let ok = true;
  for (const e of [ours, theirs]) {
    try {
      const actual = canonicalFromGraphql(await runOnce(e, o.user, q, noPrepared));
      const d = firstDifference(expected, actual);
      if (d) {
        ok = false;
        wrong.push(`relation filter, ${e.label}: ${d}`);
      }
    } catch (err) {
      ok = false;
      wrong.push(`relation filter, ${e.label}: ${(err as Error).message}`);
    }
  }
  if (!ok) return undefined;
  const http = (e: HttpEngine) => (clients: number, bounds: Bounds) => wrkRun({ url: e.url, headers: e.headers, body: requestBody(e, q, noPrepared) }, clients, bounds, o.workDir);
  const pair = { mine: await timed(o, http(ours)), theirs: await timed(o, http(theirs)) };
  logPair(o, "relfilter", pair, "pg_graphql server", "PostGraphile v5 + connection-filter");
  return pair;
}

/** graphql.resolve and the hand-written SQL answer alike (after `before`), then both are timed. */
async function inDatabase(
  o: FeatureOptions,
  name: string,
  answers: { mine: () => Promise<unknown>; theirs: () => Promise<unknown>; beside?: () => Promise<unknown> },
  scripts: { mine: string; theirs: string; beside?: string },
  before: () => Promise<void>,
  wrong: string[],
): Promise<FeaturePair | undefined> {
  await before();
  const theirs = await answers.theirs();
  for (const [label, answer] of [["graphql.resolve", answers.mine], ["the one statement", answers.beside]] as const) {
    if (answer === undefined) continue;
    await before();
    const got = await answer();
    if (!isDeepStrictEqual(got, theirs)) {
      wrong.push(`${name}: ${label} answered ${JSON.stringify(got).slice(0, 300)}, the hand-written SQL ${JSON.stringify(theirs).slice(0, 300)}`);
      return undefined;
    }
  }
  const pair: FeaturePair = { mine: new Map(), theirs: new Map(), rounds: new Map() };
  if (scripts.beside !== undefined) pair.beside = new Map();
  for (const clients of o.clients) {
    const r = await measurePairInRounds(o.pgTarget, scripts, clients, { seconds: o.seconds, maxRequests: 2_000_000, warmupSeconds: o.warmup }, o.workDir, before, o.postmaster);
    pair.mine.set(clients, r.cells.mine!);
    pair.theirs.set(clients, r.cells.theirs!);
    if (r.cells.beside) pair.beside?.set(clients, r.cells.beside);
    pair.rounds!.set(clients, r);
    o.log(`${name.padEnd(9)} @${clients}: graphql.resolve's time ${spread(r.time)} the hand-written SQL's${r.cpu ? `, on backend CPU ${spread(r.cpu)}` : ""}`);
  }
  logPair(o, name, pair, "graphql.resolve", "hand-written SQL");
  return pair;
}

export async function measureFeatures(o: FeatureOptions): Promise<FeatureFigures> {
  const previous = (await o.admin.query<{ c: string | null }>("select obj_description('public'::regnamespace, 'pg_namespace') as c")).rows[0]!.c;
  await o.admin.query(`comment on schema public is ${quote(featureSchemaComment)}`);
  const wrong: string[] = [];
  const engines: HttpEngine[] = [];
  const reset = () => resetWrites(o.admin, o.scale);
  try {
    await reset();
    const relation = await relationFilter(o, engines, wrong);
    for (const e of engines.splice(0)) await e.stop();
    // Each client upserts an account of its own (its number + 1), with the same values each
    // time: no client waits for another's row lock, and, as for every other bench query, the same
    // request text and variables are compiled once per backend.
    const pick = "\\set k :client_id + 1\n";
    const upsert = await inDatabase(
      o,
      "upsert",
      {
        mine: () => jsonbAnswer(o.user, `select graphql.resolve($1, ${upsertVariablesSql("$2")}) as result`, [upsertGraphql, 7]),
        theirs: () => jsonbAnswer(o.user, upsertFloorSql("$1"), [7]),
      },
      { mine: pick + resolveScript(upsertGraphql, undefined, upsertVariablesSql(":k")), theirs: pick + sqlScript(upsertFloorSql(":k")) },
      reset,
      wrong,
    );
    await o.admin.query(nestedFloorSetup);
    const nested = await inDatabase(
      o,
      "nested",
      {
        mine: () => jsonbAnswer(o.user, "select graphql.resolve($1) as result", [nestedGraphql]),
        theirs: () => jsonbAnswer(o.user, nestedFloorSql),
        beside: () => jsonbAnswer(o.user, nestedOneStatementSql),
      },
      { mine: resolveScript(nestedGraphql), theirs: sqlScript(nestedFloorSql), beside: sqlScript(nestedOneStatementSql) },
      reset,
      wrong,
    );
    for (const w of wrong) o.log(`MISMATCH features: ${w}`);
    return { relationFilter: relation, upsert, nested, wrong };
  } finally {
    for (const e of engines) await e.stop();
    await reset();
    await o.admin.query("drop schema if exists bench_floor cascade");
    await o.admin.query(`comment on schema public is ${previous === null ? "null" : quote(previous)}`);
  }
}

/** The section's table for results.md. */
export function renderFeatures(f: FeatureFigures, clients: number[]): string[] {
  const lines = ["### Opt-in features", "", "| Workload | Engine | " + clients.map((c) => `req/s @${c} | p50 ms @${c}`).join(" | ") + " |"];
  lines.push("| --- | --- | " + clients.map(() => "--- | ---").join(" | ") + " |");
  const row = (workload: string, engine: string, cells: Map<number, Cell>) =>
    lines.push(`| ${workload} | ${engine} | ${clients.map((c) => `${Math.round(cells.get(c)?.rps ?? NaN).toLocaleString("en-US")} | ${(cells.get(c)?.p50Ms ?? NaN).toFixed(2)}`).join(" | ")} |`);
  if (f.relationFilter) {
    row(relationFilterQuery.title, "pg_graphql server", f.relationFilter.mine);
    row(relationFilterQuery.title, "PostGraphile v5 + connection-filter", f.relationFilter.theirs);
  }
  for (const [name, pair] of [["upsert of 1 row (in the database)", f.upsert], ["nested insert, 1 + 10 rows (in the database)", f.nested]] as const) {
    if (!pair) continue;
    row(name, "graphql.resolve (pgbench)", pair.mine);
    row(name, pair.beside ? "hand-written SQL, the same statements, answer as jsonb (pgbench)" : "hand-written SQL, answer as jsonb (pgbench)", pair.theirs);
    if (pair.beside) row(name, "hand-written SQL as one statement (data-modifying CTEs), answer as jsonb (pgbench)", pair.beside);
  }
  lines.push("");
  return lines;
}

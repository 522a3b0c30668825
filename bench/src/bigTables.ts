// Bench stage: big tables. Input: the cluster, row counts (10k, 100k and 1M by default). Output:
// graphql.resolve's time per request for pages by cursor (forward, backward), a filter on an
// indexed column, node(nodeId:) and a nested page at each size (flat when the generated SQL reads
// indexes), totalCount apart (a count grows with the table), and the JIT functions the generated
// statements compiled at the largest size with the default `jit` settings.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { resolveScript } from "./indb";
import { median, pgbenchRun, type PgTarget } from "./load";
import { settled, summarize, type Settled } from "./settle";

export const bigDatabase = "bench_big";

export interface BigCase {
  name: string;
  title: string;
  /** Not judged for flatness: its work grows with the table. */
  grows?: boolean;
  graphql(refs: Refs): string;
  /** Edges the answer must hold (the answer check). */
  edges(data: any): number;
  expectedEdges: number;
}

/** Values read from each size's data before timing. */
interface Refs {
  middleCursor: string;
  middleNodeId: string;
}

const page = "pageInfo { hasNextPage hasPreviousPage } edges { cursor node { id title } }";

export const bigCases: BigCase[] = [
  {
    name: "forward",
    title: "page of 20 after a cursor",
    graphql: (r) => `{ itemCollection(first: 20, after: "${r.middleCursor}") { ${page} } }`,
    edges: (d) => d.itemCollection.edges.length,
    expectedEdges: 20,
  },
  {
    name: "backward",
    title: "page of 20 before a cursor",
    graphql: (r) => `{ itemCollection(last: 20, before: "${r.middleCursor}") { ${page} } }`,
    edges: (d) => d.itemCollection.edges.length,
    expectedEdges: 20,
  },
  {
    name: "filter",
    title: "filter on an indexed column (20 rows)",
    graphql: () => "{ itemCollection(first: 20, filter: { category: { eq: 7 } }) { edges { node { id title } } } }",
    edges: (d) => d.itemCollection.edges.length,
    expectedEdges: 20,
  },
  {
    name: "node",
    title: "node(nodeId:)",
    graphql: (r) => `{ node(nodeId: "${r.middleNodeId}") { ... on Item { id title } } }`,
    edges: (d) => (d.node ? 1 : 0),
    expectedEdges: 1,
  },
  {
    name: "nested",
    title: "nested page (20 items → their notes)",
    graphql: (r) => `{ itemCollection(first: 20, after: "${r.middleCursor}") { edges { node { id noteCollection(first: 5) { edges { node { id body } } } } } } }`,
    edges: (d) => d.itemCollection.edges.length,
    expectedEdges: 20,
  },
  {
    name: "count",
    title: "totalCount of the whole table",
    grows: true,
    graphql: () => "{ itemCollection(first: 1) { totalCount } }",
    edges: (d) => (d.itemCollection.totalCount > 0 ? 1 : 0),
    expectedEdges: 1,
  },
];

export interface BigTableFigures {
  sizes: number[];
  /** Median p50 ms per request by case name, then by row count. */
  ms: Map<string, Map<number, number>>;
  /** At the largest size, default `jit` settings: statements run inside graphql.resolve. */
  jit: { calls: number; jitFunctions: number };
  /** Cases whose answer was an error or had the wrong number of rows. */
  wrong: string[];
  /** Per flat case: the largest size's time over the smallest's, round by round. */
  spread: Map<string, Settled>;
  /** Per size: shared buffer blocks hit and read per statement run inside graphql.resolve. */
  blocks: Map<number, { hit: number; read: number }>;
  /** Per size: the tables with their indexes, against shared_buffers. */
  relationMiB: Map<number, number>;
  sharedBuffersMiB: number;
}

const schemaOf = (rows: number) => `rows_${rows}`;

// Every category holds 20 rows at every size, so the filter's answer is the same size.
function createSql(rows: number): string {
  const s = schemaOf(rows);
  return `
    create schema ${s};
    comment on schema ${s} is '@graphql({"inflect_names": true})';
    create table ${s}.item(id int primary key, category int not null, title text not null);
    comment on table ${s}.item is '@graphql({"totalCount": {"enabled": true}})';
    create table ${s}.note(id int primary key, item_id int not null references ${s}.item(id), body text not null);
    insert into ${s}.item select i, i % ${rows / 20}, 'item ' || i from generate_series(1, ${rows}) i;
    insert into ${s}.note select i, 1 + (i::bigint * 7919) % ${rows}, 'note ' || i from generate_series(1, ${rows}) i;
    create index on ${s}.item(category);
    create index on ${s}.note(item_id);
    analyze ${s}.item, ${s}.note;
    grant usage on schema ${s} to authenticated;
    grant select on all tables in schema ${s} to authenticated;`;
}

async function resolveAs(client: pg.Client, rows: number, graphql: string): Promise<any> {
  await client.query("begin");
  try {
    await client.query("set local role authenticated");
    await client.query(`set local search_path = ${schemaOf(rows)}`);
    const { rows: out } = await client.query<{ answer: any }>("select graphql.resolve($1) as answer", [graphql]);
    return out[0]!.answer;
  } finally {
    await client.query("commit");
  }
}

export interface BigTableOptions {
  url: (database: string) => string;
  pgTarget: PgTarget;
  sizes: number[];
  seconds: number;
  runs: number;
  workDir: string;
  /** The statistics view's schema, reset before the largest size's runs. */
  statsSchema: string;
  admin: pg.Client;
  log: (msg: string) => void;
}

export async function measureBigTables(o: BigTableOptions): Promise<BigTableFigures> {
  await o.admin.query(`create database ${bigDatabase}`);
  const client = new pg.Client({ connectionString: o.url(bigDatabase) });
  client.on("error", () => {});
  await client.connect();
  const figures: BigTableFigures = {
    sizes: o.sizes, ms: new Map(bigCases.map((c) => [c.name, new Map()])), jit: { calls: 0, jitFunctions: 0 }, wrong: [],
    spread: new Map(), blocks: new Map(), relationMiB: new Map(), sharedBuffersMiB: 0,
  };
  try {
    await client.query("create extension pg_graphql cascade; grant usage on schema graphql to authenticated");
    const target = { ...o.pgTarget, database: bigDatabase };
    // Every size made first, then timed in rounds that run each case at every size back to back,
    // so a drift of the machine's speed moves all sizes of a round alike.
    const scripts = new Map<string, Map<number, string>>(bigCases.map((c) => [c.name, new Map()]));
    for (const rows of o.sizes) {
      o.log(`big tables: ${rows.toLocaleString("en-US")} rows`);
      await client.query(createSql(rows));
      const probe = await resolveAs(client, rows, `{ itemCollection(filter: { id: { eq: ${rows / 2} } }) { edges { cursor node { nodeId } } } }`);
      const edge = probe.data.itemCollection.edges[0];
      const refs: Refs = { middleCursor: edge.cursor, middleNodeId: edge.node.nodeId };
      for (const c of bigCases) {
        const graphql = c.graphql(refs);
        const answer = await resolveAs(client, rows, graphql);
        if (answer.errors || c.edges(answer.data) !== c.expectedEdges) {
          figures.wrong.push(`${c.name} @${rows}: ${JSON.stringify(answer).slice(0, 300)}`);
          continue;
        }
        scripts.get(c.name)!.set(rows, resolveScript(graphql, schemaOf(rows)));
      }
      const { rows: size } = await client.query<{ bytes: string }>(
        "select sum(pg_total_relation_size(c.oid))::text as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind = 'r'",
        [schemaOf(rows)],
      );
      figures.relationMiB.set(rows, Number(size[0]!.bytes) / 2 ** 20);
    }
    const { rows: sb } = await client.query<{ mb: string }>("select (pg_size_bytes(current_setting('shared_buffers')) / 1048576)::text as mb");
    figures.sharedBuffersMiB = Number(sb[0]!.mb);
    await o.admin.query(`select ${o.statsSchema}.pg_stat_statements_reset()`);
    const p50s = new Map<string, Map<number, number[]>>(bigCases.map((c) => [c.name, new Map(o.sizes.map((n) => [n, []]))]));
    const small = Math.min(...o.sizes);
    const large = Math.max(...o.sizes);
    const ratios = new Map<string, number[]>(bigCases.filter((c) => !c.grows).map((c) => [c.name, []]));
    const failed = new Set<string>();
    // A warm-up of every script: the pages it reads come into shared buffers once.
    for (const bySize of scripts.values()) for (const script of bySize.values()) pgbenchRun(target, script, 1, { seconds: 1, maxRequests: 100_000 }, o.workDir);
    for (let round = 0; round < 3 * o.runs && (round < o.runs || ![...ratios.values()].every((r) => settled(r, 0.05))); round++) {
      for (const c of bigCases) {
        const bySize = scripts.get(c.name)!;
        const sizes = round % 2 === 0 ? o.sizes : [...o.sizes].reverse();
        for (const rows of sizes) {
          const script = bySize.get(rows);
          if (!script || failed.has(`${c.name}@${rows}`)) continue;
          const t = pgbenchRun(target, script, 1, { seconds: o.seconds, maxRequests: 100_000 }, o.workDir);
          if (t.failures > 0 || t.requests === 0) {
            failed.add(`${c.name}@${rows}`);
            figures.wrong.push(`${c.name} @${rows}: failed transactions under load`);
            continue;
          }
          p50s.get(c.name)!.get(rows)!.push(t.p50Ms);
        }
        const got = p50s.get(c.name)!;
        const a = got.get(small)!.at(-1);
        const b = got.get(large)!.at(-1);
        if (!c.grows && a !== undefined && b !== undefined && got.get(small)!.length === round + 1 && got.get(large)!.length === round + 1) ratios.get(c.name)!.push(b / a);
      }
    }
    for (const c of bigCases) {
      for (const [rows, values] of p50s.get(c.name)!) if (values.length > 0) figures.ms.get(c.name)!.set(rows, median(values));
      const r = ratios.get(c.name);
      if (r && r.length > 0) figures.spread.set(c.name, summarize(r));
    }
    figures.blocks = await blocksPerStatement(o.admin, o.statsSchema, o.sizes);
    figures.jit = await jitOfGenerated(o.admin, o.statsSchema, large);
  } finally {
    await client.end().catch(() => {});
    // Left behind, the million-row tables' autovacuum and their dirty pages would run during
    // the sections timed after this one.
    await o.admin.query(`drop database if exists ${bigDatabase} with (force)`);
  }
  return figures;
}

/** Per size: shared buffer blocks hit and read (from the page cache or disk) per statement run
 * inside graphql.resolve, over the timed rounds. */
async function blocksPerStatement(admin: pg.Client, statsSchema: string, sizes: number[]): Promise<Map<number, { hit: number; read: number }>> {
  const out = new Map<number, { hit: number; read: number }>();
  for (const rows of sizes) {
    const { rows: r } = await admin.query<{ calls: string | null; hit: string | null; read: string | null }>(
      `select sum(s.calls) as calls, sum(s.shared_blks_hit) as hit, sum(s.shared_blks_read) as read
         from ${statsSchema}.pg_stat_statements(true) s join pg_database d on d.oid = s.dbid
        where d.datname = $1 and not s.toplevel and s.query like '%' || $2 || '%'`,
      [bigDatabase, schemaOf(rows)],
    );
    const calls = Number(r[0]?.calls ?? 0);
    if (calls > 0) out.set(rows, { hit: Number(r[0]!.hit) / calls, read: Number(r[0]!.read) / calls });
  }
  return out;
}

/** Statements run inside graphql.resolve in the big-table database since the last reset. */
async function jitOfGenerated(admin: pg.Client, statsSchema: string, rows: number): Promise<{ calls: number; jitFunctions: number }> {
  const { rows: r } = await admin.query<{ calls: string | null; jit: string | null }>(
    `select sum(s.calls) as calls, sum(s.jit_functions) as jit
       from ${statsSchema}.pg_stat_statements(true) s join pg_database d on d.oid = s.dbid
      where d.datname = $1 and not s.toplevel and s.query like '%' || $2 || '%'`,
    [bigDatabase, schemaOf(rows)],
  );
  const rows_ = r;
  return { calls: Number(rows_[0]?.calls ?? 0), jitFunctions: Number(rows_[0]?.jit ?? 0) };
}

/** Time at the largest size over time at the smallest, per flat case. */
export function flatness(f: BigTableFigures): { name: string; title: string; ratio: number | undefined; rounds: Settled | undefined }[] {
  const small = Math.min(...f.sizes);
  const large = Math.max(...f.sizes);
  return bigCases
    .filter((c) => !c.grows)
    .map((c) => {
      const ms = f.ms.get(c.name)!;
      const a = ms.get(small);
      const b = ms.get(large);
      const rounds = f.spread.get(c.name);
      return { name: c.name, title: c.title, ratio: rounds ? rounds.median : a && b ? b / a : undefined, rounds };
    });
}

export function renderBigTables(f: BigTableFigures, plotFile: string | undefined): string[] {
  const lines = ["### Big tables (graphql.resolve, 1 client, p50 ms per request)", ""];
  if (plotFile) lines.push(`![Time per request against rows](${plotFile})`, "");
  lines.push(`| Case | ${f.sizes.map((n) => `${n.toLocaleString("en-US")} rows`).join(" | ")} |`, `| --- | ${f.sizes.map(() => "---").join(" | ")} |`);
  for (const c of bigCases) {
    const ms = f.ms.get(c.name)!;
    lines.push(`| ${c.title} | ${f.sizes.map((n) => (ms.has(n) ? ms.get(n)!.toFixed(2) : "–")).join(" | ")} |`);
  }
  lines.push(`| tables with their indexes, MiB (shared_buffers: ${f.sharedBuffersMiB.toFixed(0)} MiB) | ${f.sizes.map((n) => f.relationMiB.get(n)?.toFixed(0) ?? "–").join(" | ")} |`);
  lines.push(`| shared buffer blocks hit / read outside them, per statement run inside graphql.resolve | ${f.sizes.map((n) => (f.blocks.has(n) ? `${f.blocks.get(n)!.hit.toFixed(1)} / ${f.blocks.get(n)!.read.toFixed(2)}` : "–")).join(" | ")} |`);
  const rounds = [...f.spread.values()][0]?.n ?? 0;
  lines.push("", `The sizes are timed in rounds (each case at every size back to back; ${rounds} rounds, more while the ratios' medians were not known to 5%); a flatness ratio is the median of the rounds' ratios: ${flatness(f).map((x) => `${x.name} ${x.rounds ? `${x.rounds.low.toFixed(2)}–${x.rounds.high.toFixed(2)}` : "–"}`).join(", ")}.`);
  lines.push("", `With the default \`jit\` settings at ${Math.max(...f.sizes).toLocaleString("en-US")} rows, the ${f.jit.calls} statements run inside graphql.resolve JIT-compiled ${f.jit.jitFunctions} functions.`, "");
  return lines;
}

/** Time per request against rows (log-log), one line per case; false when gnuplot is missing. */
export function plotBigTables(f: BigTableFigures, dir: string, pngPath: string): boolean {
  const dataPath = join(dir, "bigtables.dat");
  const rows = f.sizes.map((n) => `${n} ${bigCases.map((c) => f.ms.get(c.name)!.get(n)?.toFixed(3) ?? "NaN").join(" ")}`);
  writeFileSync(dataPath, rows.join("\n") + "\n");
  const plots = bigCases.map((c, i) => `'${dataPath}' using 1:${i + 2} with linespoints title ${JSON.stringify(c.title)}`).join(", ");
  const script = `set terminal pngcairo noenhanced size 1000,600 font "DejaVu Sans,10"
set output '${pngPath}'
set title "graphql.resolve: time per request against rows (1 client, p50)"
set logscale xy
set xlabel "rows"
set ylabel "ms per request"
set grid
set key outside right top vertical
plot ${plots}
`;
  const scriptPath = join(dir, "bigtables.gp");
  writeFileSync(scriptPath, script);
  const out = spawnSync("gnuplot", [scriptPath], { encoding: "utf8" });
  return !out.error && out.status === 0;
}

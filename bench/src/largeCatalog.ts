// Bench stage: a large catalog. Input: the cluster (a database of its own, so no other engine
// reflects it) and a table count (500 by default). Output: the first graphql.resolve in a new
// backend, the first after a DDL change, what a full introspection query costs there, and the
// backend's own split of the first call (reflection and building the API).
import pg from "pg";
import { connect, timedAsUser } from "./coldStart";
import { median } from "./load";
import { codeCacheProbe, describeCounters, type CodeCacheCounters } from "./machineFactors";
import { settled, summarize, type Settled } from "./settle";

export const catalogDatabase = "bench_catalog";

const samples = 5;

export interface LargeCatalogFigures {
  tables: number;
  /** Medians of 5, ms as the client sees the statement. */
  firstCallMs: number;
  /** The first calls' range and count. */
  firstSpread: Settled;
  /** The handler's code cache in those new backends. */
  codeCache: CodeCacheCounters;
  /** The first call of a request that needs the whole API (a node lookup): every table reflected and built. */
  firstWholeMs: number;
  afterDdlMs: number;
  warmMs: number;
  /** The whole schema's introspection (GraphiQL's query): first in a new backend, then again. */
  introspectionFirstMs: number;
  introspectionAgainMs: number;
  introspectionBytes: number;
  /** graphql._bundle_info() after a first call: the backend's own timings of its last reflection. */
  inBackend: { directoryMs: number; narrowingMs: number; reflectionMs: number; buildMs: number };
  /** Answers that were errors or of the wrong size. */
  wrong: string[];
}

/**
 * Table i (1-based) has an `id` key, 8 plain columns, a key to table i-1 and one to table i/2
 * (10 columns, 2 foreign keys each past the first two), and 3 rows.
 */
function createSql(tables: number): string {
  return `
    comment on schema public is '@graphql({"introspection": true})';
    do $$
    begin
      for i in 1..${tables} loop
        execute format(
          'create table t%s (id integer primary key, name text not null, code varchar(20), amount numeric,
             qty integer, active boolean, created_at timestamptz not null default now(), note text,
             parent_id integer %s, other_id integer %s)',
          i,
          case when i > 1 then format('references t%s(id)', i - 1) else '' end,
          case when i > 2 then format('references t%s(id)', i / 2) else '' end);
        execute format('insert into t%s (id, name, parent_id) select g, ''row '' || g, %s from generate_series(1, 3) g',
          i, case when i > 1 then 'g' else 'null' end);
      end loop;
    end $$;
    grant select, insert, update, delete on all tables in schema public to authenticated;
    analyze;`;
}

// A first page of one table and, nested, its rows in the next table: two of 500 tables named.
const operation = "{ t1Collection(first: 2) { edges { node { id name t2Collection(first: 2) { edges { node { id name } } } } } } }";

/** GraphiQL's introspection query (graphql-js getIntrospectionQuery(), default options). */
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`;

async function resolveTimed(client: pg.Client, query: string, wrong: string[], check: (data: any) => boolean): Promise<{ ms: number; bytes: number }> {
  const { ms, text } = await timedAsUser(client, "select graphql.resolve($1)::text as text", [query]);
  const answer = JSON.parse(text);
  if (answer.errors || !check(answer.data)) wrong.push(text.slice(0, 300));
  return { ms, bytes: text.length };
}

const pageOk = (d: any) => d?.t1Collection?.edges?.length === 2 && d.t1Collection.edges[0].node.t2Collection.edges.length === 1;
const schemaOk = (tables: number) => (d: any) => (d?.__schema?.types?.length ?? 0) > tables * 10;

export async function measureLargeCatalog(o: { url: (database: string) => string; authUrl: (database: string) => string; admin: pg.Client; tables: number; log: (msg: string) => void }): Promise<LargeCatalogFigures> {
  await o.admin.query(`create database ${catalogDatabase}`);
  const owner = await connect(o.url(catalogDatabase));
  const wrong: string[] = [];
  try {
    await owner.query("create extension pg_graphql cascade; grant usage on schema graphql to authenticated");
    o.log(`large catalog: creating ${o.tables} tables`);
    await owner.query(createSql(o.tables));
    const url = o.authUrl(catalogDatabase);
    // The code cache is warm in production: a first backend compiles and stores the bundle.
    const warmup = await connect(url);
    await resolveTimed(warmup, operation, wrong, pageOk);
    const { text } = await timedAsUser(warmup, "select graphql.resolve($1)::text as text", ["{ t1Collection(first: 1) { edges { node { nodeId } } } }"]);
    const nodeQuery = `{ node(nodeId: "${JSON.parse(text).data.t1Collection.edges[0].node.nodeId}") { ... on t1 { id name } } }`;
    await warmup.end();

    const first: number[] = [];
    const warm: number[] = [];
    const splits: LargeCatalogFigures["inBackend"][] = [];
    // New backends until the median is known to 10% (at least `samples`, at most three times that).
    while (first.length < samples || (first.length < 3 * samples && !settled(first, 0.1))) {
      const client = await connect(url);
      first.push((await resolveTimed(client, operation, wrong, pageOk)).ms);
      // As the role that resolved: each role has its own JavaScript environment and figures.
      const info = JSON.parse((await timedAsUser(client, "select graphql._bundle_info()::text as text", [])).text) as Record<string, number>;
      if (info.schemaLoads !== 0 || info.partialSchemaLoads !== 1) wrong.push(`expected one narrowed reflection: ${JSON.stringify(info)}`);
      splits.push({ directoryMs: info.lastDirectoryMs ?? NaN, narrowingMs: info.lastNarrowingMs ?? NaN, reflectionMs: info.lastReflectionMs ?? NaN, buildMs: info.lastBuildMs ?? NaN });
      for (let j = 0; j < 3; j++) warm.push((await resolveTimed(client, operation, wrong, pageOk)).ms);
      await client.end();
    }

    const codeCache = await codeCacheProbe(o.url(catalogDatabase), (c) => resolveTimed(c, operation, wrong, pageOk));

    const whole: number[] = [];
    for (let i = 0; i < samples; i++) {
      const c = await connect(url);
      whole.push((await resolveTimed(c, nodeQuery, wrong, (d) => d?.node?.id === 1)).ms);
      await c.end();
    }

    const afterDdl: number[] = [];
    const client = await connect(url);
    await resolveTimed(client, operation, wrong, pageOk);
    for (let i = 0; i < samples; i++) {
      await owner.query("create table ddl_probe (id integer primary key)");
      afterDdl.push((await resolveTimed(client, operation, wrong, pageOk)).ms);
      await owner.query("drop table ddl_probe");
      await resolveTimed(client, operation, wrong, pageOk);
    }
    await client.end();

    o.log("large catalog: full introspection");
    const introFirst: number[] = [];
    const introAgain: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 3; i++) {
      const c = await connect(url);
      const r = await resolveTimed(c, introspectionQuery, wrong, schemaOk(o.tables));
      introFirst.push(r.ms);
      bytes = r.bytes;
      introAgain.push((await resolveTimed(c, introspectionQuery, wrong, schemaOk(o.tables))).ms);
      await c.end();
    }
    return {
      tables: o.tables,
      firstCallMs: median(first),
      firstSpread: summarize(first),
      codeCache,
      firstWholeMs: median(whole),
      afterDdlMs: median(afterDdl),
      warmMs: median(warm),
      introspectionFirstMs: median(introFirst),
      introspectionAgainMs: median(introAgain),
      introspectionBytes: bytes,
      inBackend: {
        directoryMs: median(splits.map((x) => x.directoryMs)),
        narrowingMs: median(splits.map((x) => x.narrowingMs)),
        reflectionMs: median(splits.map((x) => x.reflectionMs)),
        buildMs: median(splits.map((x) => x.buildMs)),
      },
      wrong,
    };
  } finally {
    await owner.end().catch(() => {});
    // The sections timed after this one run without its catalog's autovacuum.
    await o.admin.query(`drop database if exists ${catalogDatabase} with (force)`);
  }
}

export function renderLargeCatalog(f: LargeCatalogFigures): string[] {
  return [
    `### Large catalog (${f.tables} tables × 10 columns with foreign keys; graphql.resolve, median of ${samples})`,
    "",
    "| Case | ms |",
    "| --- | --- |",
    `| first call in a new backend (2 tables named, one nested in the other; ${f.firstSpread.n} backends, range ${f.firstSpread.low.toFixed(2)}–${f.firstSpread.high.toFixed(2)}) | ${f.firstCallMs.toFixed(2)} |`,
    `| of which, timed in the backend: the directory query (every relation's names and keys) / choosing the named tables / their reflection query / building their API | ${f.inBackend.directoryMs} / ${f.inBackend.narrowingMs} / ${f.inBackend.reflectionMs} / ${f.inBackend.buildMs} |`,
    `| first call in a new backend of a request that needs the whole API (a node lookup: every table reflected and built, as every first call was before narrowing) | ${f.firstWholeMs.toFixed(2)} |`,
    `| first call after a DDL change | ${f.afterDdlMs.toFixed(2)} |`,
    `| warm call | ${f.warmMs.toFixed(2)} |`,
    `| full introspection query, first in a new backend (the whole schema reflected and built) | ${f.introspectionFirstMs.toFixed(2)} |`,
    `| full introspection query, again in that backend | ${f.introspectionAgainMs.toFixed(2)} |`,
    "",
    `The introspection answer is ${(f.introspectionBytes / 1024 / 1024).toFixed(1)} MiB of JSON. In three more new backends making the first row's call, the handler's code cache gave: ${describeCounters(f.codeCache)}.`,
    "",
  ];
}

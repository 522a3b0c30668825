// Bench entry: runs the whole benchmark. Input: environment knobs (BENCH_SCALE, BENCH_SECONDS,
// BENCH_RUNS, BENCH_WARMUP, BENCH_ENGINES, BENCH_QUERIES). Output: results.md and
// throughput.png in bench/report/ (and a copy under bench/.out/), the table on stdout, and a
// non-zero exit when any engine's answer differs from the hand-written SQL's.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import pg from "pg";
import { installStatementStats, statementFigures, statsSchema, type StatementFigures } from "./backendStats";
import { measureBigTables, plotBigTables, type BigTableFigures } from "./bigTables";
import { canonicalFromGraphql, canonicalValue, firstDifference, sameAnswer, type Json } from "./canonical";
import { connectionUrl, crashLines, startCluster, stopCluster, type Cluster } from "./cluster";
import { createDataset, resetDataset, scaleNamed, type Scale } from "./dataset";
import {
  benchDir, engineLabels, oursServerAvailable, repoDir, startHttpFloor, startOurs, startPostgraphile,
  type Engine, type EngineId, type HttpEngine, type PgbenchEngine,
} from "./engines";
import { answerScripts, benchClaims, resolveScript, resolveText, sqlAnswer, sqlScript } from "./indb";
import { measureInDatabase, measureOverHttp, spread, type InDatabaseScripts, type NestedRatios } from "./nestedRatios";
import { measurePlatform, platformSettings, type PlatformFigures } from "./platform";
import { measureMachine, noteLoad } from "./machineFactors";
import { median, pgbenchRun, wrkRun, type Bounds, type PgTarget, type RunFigures } from "./load";
import { prepareEngine } from "./prepare";
import { benchQueries, type BenchQuery, type Prepared } from "./queries";
import { commitDescription, loadAverage, machineDescription, renderMarkdown, renderPlot, type Cell, type ColdStart, type MemoryFigures, type Report, type Row } from "./report";
import { requestBody, runOnce } from "./transport";
import { evaluateTargets, explainMisses } from "./targets";
import { measureColdStart, measureMemory } from "./coldStart";
import { measureLargeCatalog, type LargeCatalogFigures } from "./largeCatalog";
import { measureRequestLogging, type RequestLoggingFigures } from "./requestLogging";
import { measureFeatures } from "./features";

const knob = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  // pgbench and wrk take whole seconds.
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`);
  return value;
};
const list = (name: string): string[] | undefined => process.env[name]?.split(",").map((s) => s.trim()).filter(Boolean);

const scale: Scale = scaleNamed(process.env.BENCH_SCALE ?? "default");
const seconds = knob("BENCH_SECONDS", 2);
const runs = knob("BENCH_RUNS", 3);
const warmup = knob("BENCH_WARMUP", 1);
const clientLevels = [1, 8];
const statementSamples = 20;
const wantedEngines = list("BENCH_ENGINES");
const wantedQueries = list("BENCH_QUERIES");
const maxRequestsPerRun = 2_000_000;
const bigRows = (list("BENCH_BIG_ROWS") ?? ["10000", "100000", "1000000"]).map(Number);
if (bigRows.some((n) => !Number.isInteger(n) || n < 20 || n % 20 !== 0)) throw new Error("BENCH_BIG_ROWS must be whole multiples of 20");
const catalogTables = knob("BENCH_CATALOG_TABLES", 500);
const watchdogMinutes = knob("BENCH_WATCHDOG_MINUTES", scale.kind === "large" ? 240 : 120);

/** The cluster's postmaster (its first line of postmaster.pid). */
function postmasterPid(c: Cluster): number {
  return Number(readFileSync(join(c.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

function wanted(id: EngineId): boolean {
  return !wantedEngines || wantedEngines.includes(id);
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Ends a client, giving up after a few seconds: cleanup must never hang the run. */
async function closeClient(client: pg.Client | undefined): Promise<void> {
  if (!client) return;
  await Promise.race([client.end().catch(() => {}), new Promise((r) => setTimeout(r, 3_000).unref())]);
}

interface Prepared_ {
  engine: Engine;
  prepared: Prepared | undefined;
}

async function main(): Promise<number> {
  const outDir = join(benchDir, ".out", new Date().toISOString().replace(/[:.]/g, "-"));
  mkdirSync(outDir, { recursive: true });
  const workDir = mkdtempSync(join(outDir, "work-"));
  const notes: string[] = [];
  const loadAtStart = loadAverage();
  // The code this run measures: edits made while it runs do not change it.
  const commitAtStart = commitDescription(repoDir);
  let mismatches = 0;
  log(`scale ${scale.kind}: ${scale.accounts} accounts, ${scale.blogs} blogs, ${scale.posts} posts; ${runs} runs × ${seconds} s after ${warmup} s warm-up`);
  const cluster: Cluster = startCluster();
  const httpEngines: HttpEngine[] = [];
  // Every loop is bounded, but a hung connection is not: a watchdog stops everything it started.
  const watchdog = setTimeout(() => {
    log(`the run exceeded ${watchdogMinutes} minutes; stopping`);
    for (const e of httpEngines) e.kill();
    stopCluster(cluster);
    process.exit(3);
  }, watchdogMinutes * 60_000);
  watchdog.unref();
  let admin: pg.Client | undefined;
  let user: pg.Client | undefined;
  try {
    const bootstrap = await connect(connectionUrl(cluster, "postgres"));
    await bootstrap.query("create database bench");
    await bootstrap.end();
    admin = await connect(connectionUrl(cluster, "bench"));
    log("generating the dataset");
    await createDataset(admin, scale);
    await installStatementStats(admin);
    const postgresVersion = (await admin.query<{ v: string }>("select version() as v")).rows[0]!.v.split(",")[0]!;
    const factors = await measureMachine(admin);
    noteLoad(factors, "throughput");

    let extensionReady = false;
    try {
      await admin.query("create extension if not exists pg_graphql cascade");
      await admin.query("grant usage on schema graphql to anon, authenticated, service_role");
      extensionReady = true;
    } catch (e) {
      notes.push(`graphql.resolve not measured: create extension pg_graphql failed (${(e as Error).message}).`);
      log(`pg_graphql extension unavailable: ${(e as Error).message}`);
    }
    const authUrl = connectionUrl(cluster, "bench", "authenticator");
    user = await connect(authUrl);

    const engines: Engine[] = [];
    const pgbenchEngine = (id: EngineId, dialect: PgbenchEngine["dialect"]): PgbenchEngine => ({ kind: "pgbench", id, label: engineLabels[id], dialect });
    if (wanted("sql")) engines.push(pgbenchEngine("sql", "floor"));
    if (wanted("resolve") && extensionReady) engines.push(pgbenchEngine("resolve", "pg_graphql"));
    const tryStart = async (id: EngineId, start: () => Promise<HttpEngine>) => {
      if (!wanted(id)) return;
      try {
        log(`starting ${engineLabels[id]}`);
        const e = await start();
        httpEngines.push(e);
        engines.push(e);
      } catch (err) {
        notes.push(`${engineLabels[id]} not measured: it did not start (${(err as Error).message.split("\n")[0]}).`);
        log(`${engineLabels[id]} did not start: ${(err as Error).message}`);
      }
    };
    await tryStart("httpFloor", () => startHttpFloor(authUrl, 5480, benchClaims));
    if (extensionReady && oursServerAvailable()) await tryStart("ours", () => startOurs(authUrl, 5481));
    else if (wanted("ours")) notes.push(`${engineLabels.ours} not measured: ${extensionReady ? "server/dist is not built" : "the extension is not installed"}.`);
    await tryStart("postgraphile4", () => startPostgraphile(4, authUrl, 5482));
    await tryStart("postgraphile5", () => startPostgraphile(5, authUrl, 5483));

    const queries = benchQueries.filter((q) => !wantedQueries || wantedQueries.includes(q.name));
    const reset = () => resetDataset(admin!, scale);

    // Preparation and answer checks, before any timing.
    const ready: Prepared_[] = [];
    for (const engine of engines) {
      let prepared: Prepared | undefined;
      try {
        if (engine.dialect !== "floor") prepared = await prepareEngine(engine, engine.dialect, user);
      } catch (e) {
        mismatches++;
        log(`MISMATCH ${engine.label}: preparation failed: ${(e as Error).message}`);
        notes.push(`${engine.label}: preparation failed, so its answers could not be checked.`);
        continue;
      }
      ready.push({ engine, prepared });
    }
    const expected = new Map<BenchQuery, Json>();
    for (const q of queries) {
      await reset();
      expected.set(q, canonicalValue((await sqlAnswer(user, q.sql)) as Json));
    }
    // An engine is timed on the queries it answers correctly; any wrong answer fails the run.
    const passed = new Set<string>();
    const key = (r: Prepared_, q: BenchQuery) => `${r.engine.id}/${q.name}`;
    for (const r of ready) {
      const wrong: string[] = [];
      for (const q of queries) {
        await reset();
        try {
          const actual = canonicalFromGraphql(await runOnce(r.engine, user, q, r.prepared));
          if (sameAnswer(expected.get(q)!, actual)) passed.add(key(r, q));
          else {
            wrong.push(q.name);
            log(`MISMATCH ${r.engine.label} / ${q.name}: ${firstDifference(expected.get(q)!, actual)}`);
          }
        } catch (e) {
          wrong.push(q.name);
          log(`MISMATCH ${r.engine.label} / ${q.name}: ${(e as Error).message}`);
        }
      }
      if (wrong.length === 0) log(`answers match the SQL: ${r.engine.label}`);
      else {
        mismatches++;
        notes.push(`${r.engine.label}: the answer to ${wrong.join(", ")} differs from the hand-written SQL's (or is an error); not timed there.`);
      }
    }
    const checked = ready.filter((r) => queries.some((q) => passed.has(key(r, q))));
    await reset();

    const pgTarget: PgTarget = { bindir: cluster.bindir, host: cluster.host, port: cluster.port, database: "bench", user: "authenticator" };
    const scriptFor = (r: Prepared_, q: BenchQuery): string =>
      r.engine.dialect === "floor" ? sqlScript(q.sql) : resolveScript(q.graphql(r.engine.dialect, r.prepared!));
    const oneRun = (r: Prepared_, q: BenchQuery, clients: number, bounds: Bounds): RunFigures => {
      switch (r.engine.kind) {
        case "http":
          return wrkRun({ url: r.engine.url, headers: r.engine.headers, body: requestBody(r.engine, q, r.prepared) }, clients, bounds, workDir);
        case "pgbench":
          return pgbenchRun(pgTarget, scriptFor(r, q), clients, bounds, workDir);
        default:
          throw new Error(`unknown engine kind ${JSON.stringify(r.engine satisfies never)}`);
      }
    };

    // Timed runs: warm-up, then the median of bounded runs, per query, engine and client count.
    const rows: Row[] = [];
    for (const q of queries) {
      for (const r of checked) {
        if (!passed.has(key(r, q))) continue;
        const row: Row = { query: q, engine: r.engine.id, byClients: new Map(), statements: undefined };
        for (const clients of clientLevels) {
          const figures: RunFigures[] = [];
          try {
            if (q.kind === "write") await reset();
            oneRun(r, q, clients, { seconds: warmup, maxRequests: maxRequestsPerRun });
            for (let i = 0; i < runs; i++) {
              if (q.kind === "write") await reset();
              figures.push(oneRun(r, q, clients, { seconds, maxRequests: maxRequestsPerRun }));
            }
          } catch (e) {
            const message = (e as Error).message.split("\n").slice(0, 3).join(" ");
            log(`${q.name} ${r.engine.label} @${clients}: the load run failed: ${message}`);
            notes.push(`${r.engine.label}, ${q.title} at ${clients} client(s): the load run failed (${message}).`);
            continue;
          }
          const failure = figures.find((f) => f.firstFailure)?.firstFailure;
          if (failure) log(`${q.name} ${r.engine.label} @${clients}: a request failed: ${failure}`);
          const cell: Cell = {
            rps: median(figures.map((f) => f.rps)),
            p50Ms: median(figures.map((f) => f.p50Ms)),
            p99Ms: median(figures.map((f) => f.p99Ms)),
            failures: figures.reduce((n, f) => n + f.failures, 0),
          };
          row.byClients.set(clients, cell);
          log(`${q.name.padEnd(9)} ${r.engine.label.padEnd(26)} @${clients}: ${cell.rps.toFixed(0)} req/s, p50 ${cell.p50Ms.toFixed(2)} ms, p99 ${cell.p99Ms.toFixed(2)} ms${cell.failures ? `, ${cell.failures} failed` : ""}`);
        }
        rows.push(row);
      }
      if (q.kind === "write") await reset();
    }

    // The nested query's targets, on ratios taken within interleaved rounds (nestedRatios.ts).
    noteLoad(factors, "nested ratios");
    const nestedRatios: NestedRatios = { inDatabase: new Map(), overHttp: new Map() };
    const nestedBench = queries.find((q) => q.name === "nested");
    const readyOn = (id: EngineId) => checked.find((r) => r.engine.id === id && nestedBench !== undefined && passed.has(key(r, nestedBench)));
    const sqlReady = readyOn("sql");
    const resolveNested = readyOn("resolve");
    const timedBounds: Bounds = { seconds, maxRequests: maxRequestsPerRun };
    if (sqlReady && resolveNested && nestedBench) {
      const graphql = nestedBench.graphql("pg_graphql", resolveNested.prepared!);
      const answer = answerScripts(await resolveText(user!, graphql));
      const scripts: InDatabaseScripts = {
        floor: sqlScript(nestedBench.sql),
        floorJsonb: sqlScript(`select (floor.result)::jsonb as result from (${nestedBench.sql}) as floor`),
        resolve: resolveScript(graphql),
        resolveText: resolveScript(graphql, undefined, undefined, "graphql._resolve_text"),
        answerText: answer.text,
        answerJsonb: answer.jsonb,
      };
      for (const clients of clientLevels) {
        const ratios = measureInDatabase(pgTarget, scripts, clients, timedBounds, workDir, postmasterPid(cluster));
        nestedRatios.inDatabase.set(clients, ratios);
        log(
          `nested in the database @${clients}: resolve ${spread(ratios.resolveVsBound)} of the bound, _resolve_text ${spread(ratios.resolveTextVsFloor)} of the floor` +
            (ratios.cpu ? `; on backend CPU ${spread(ratios.cpu.resolveVsBound)} and ${spread(ratios.cpu.resolveTextVsFloor)}` : ""),
        );
      }
    }
    const oursNested = readyOn("ours");
    const floorNested = readyOn("httpFloor");
    if (oursNested && floorNested && nestedBench) {
      const http = (r: Prepared_) => {
        const e = r.engine as HttpEngine;
        return { url: e.url, headers: e.headers, body: requestBody(e, nestedBench, r.prepared) };
      };
      for (const clients of clientLevels) {
        const ratio = measureOverHttp(http(oursNested), http(floorNested), clients, timedBounds, workDir);
        nestedRatios.overHttp.set(clients, ratio);
        log(`nested over HTTP @${clients}: ${spread(ratio)} of the HTTP floor's req/s`);
      }
    }

    // Statements and database time per request, from pg_stat_statements, after the timed runs so
    // that every engine's pooled backends are warm
    // (the pgbench engines' statements sent over the same role-switching transaction).
    const statements = new Map<string, StatementFigures>();
    for (const r of checked) {
      for (const q of queries) {
        if (!passed.has(key(r, q))) continue;
        await reset();
        const figures = await statementFigures(admin, "bench", statementSamples, async () => {
          await runOnce(r.engine, user!, q, r.prepared);
        });
        statements.set(key(r, q), figures);
      }
    }
    await reset();

    for (const row of rows) row.statements = statements.get(`${row.engine}/${row.query.name}`);

    let coldStart: ColdStart | undefined;
    const memory: MemoryFigures[] = [];
    const nestedQuery = queries.find((q) => q.name === "nested");
    const resolveReady = checked.find((r) => r.engine.id === "resolve" && nestedQuery !== undefined && passed.has(key(r, nestedQuery)));
    if (resolveReady) {
      log("measuring cold start and memory");
      noteLoad(factors, "cold start");
      coldStart = await measureColdStart(authUrl, connectionUrl(cluster, "bench"), admin, resolveReady.prepared!);
      const reads = queries.filter((q) => q.kind === "read" && passed.has(key(resolveReady, q)));
      memory.push(await measureMemory(`graphql.resolve (${reads.map((q) => q.name).join(", ")} in turn)`, authUrl, resolveReady.prepared!, "resolve", reads));
      memory.push(await measureMemory("hand-written SQL (same queries)", authUrl, undefined, "sql", reads));
    } else {
      const reads = queries.filter((q) => q.kind === "read");
      if (reads.length > 0) memory.push(await measureMemory("hand-written SQL (read queries in turn)", authUrl, undefined, "sql", reads));
    }

    let bigTables: BigTableFigures | undefined;
    if (extensionReady && wanted("resolve") && (!wantedQueries || wantedQueries.includes("bigtables"))) {
      noteLoad(factors, "big tables");
      bigTables = await measureBigTables({
        url: (database) => connectionUrl(cluster, database), pgTarget, sizes: bigRows, seconds, runs, workDir, statsSchema, admin, log,
      });
      if (bigTables.wrong.length > 0) {
        mismatches++;
        for (const w of bigTables.wrong) log(`MISMATCH big tables: ${w}`);
        notes.push(`Big tables: wrong answers (${bigTables.wrong.map((w) => w.split(":")[0]).join(", ")}); not timed there.`);
      }
    }

    let largeCatalog: LargeCatalogFigures | undefined;
    if (extensionReady && wanted("resolve") && (!wantedQueries || wantedQueries.includes("catalog"))) {
      noteLoad(factors, "large catalog");
      largeCatalog = await measureLargeCatalog({
        url: (database) => connectionUrl(cluster, database),
        authUrl: (database) => connectionUrl(cluster, database, "authenticator"),
        admin, tables: catalogTables, log,
      });
      if (largeCatalog.wrong.length > 0) {
        mismatches++;
        for (const w of largeCatalog.wrong) log(`MISMATCH large catalog: ${w}`);
        notes.push(`Large catalog: ${largeCatalog.wrong.length} wrong answer(s).`);
      }
    }

    const features = extensionReady && oursServerAvailable() && (!wantedQueries || wantedQueries.includes("features"))
      ? await measureFeatures({ admin, user: user!, authUrl, pgTarget, scale, clients: clientLevels, runs, seconds, warmup, workDir, log })
      : undefined;
    if (features && features.wrong.length > 0) {
      mismatches++;
      notes.push(`Opt-in features: ${features.wrong.length} wrong answer(s); not timed there.`);
    }

    let requestLogging: RequestLoggingFigures | undefined;
    if (extensionReady && wanted("ours") && (!wantedQueries || wantedQueries.includes("logging"))) {
      // The dirty pages of the sections before are written now, not by a checkpoint during the runs.
      await admin.query("checkpoint");
      noteLoad(factors, "request logs");
      requestLogging = await measureRequestLogging({
        adminUrl: (database) => connectionUrl(cluster, database), clients: clientLevels, runs, seconds, workDir, log,
      });
      if (requestLogging.recorded < requestLogging.answered) {
        mismatches++;
        log(`MISMATCH request logs: ${requestLogging.answered} requests answered, ${requestLogging.recorded} recorded`);
        notes.push("Request logs: fewer requests recorded than answered.");
      }
    }

    let platform: PlatformFigures | undefined;
    if (extensionReady && wanted("ours") && (!wantedQueries || wantedQueries.includes("platform"))) {
      noteLoad(factors, "platform");
      try {
        platform = await measurePlatform({ ...platformSettings(), seconds: Math.max(seconds, 3), workDir, log });
      } catch (e) {
        log(`platform section failed: ${(e as Error).stack ?? String(e)}`);
        notes.push(`Platform: the section failed (${(e as Error).message.split("\n")[0]}).`);
      }
    }

    const failedUnderLoad = rows.reduce((n, row) => n + [...row.byClients.values()].reduce((m, c) => m + c.failures, 0), 0);
    if (failedUnderLoad > 0) notes.push(`${failedUnderLoad} requests failed under load (HTTP status other than 200, or a GraphQL error); see the "failed" column.`);
    const report: Report = {
      date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      commit: commitAtStart,
      machine: machineDescription(),
      postgres: postgresVersion,
      settings: `${scale.kind} scale (${scale.accounts.toLocaleString("en-US")} accounts, ${scale.blogs.toLocaleString("en-US")} blogs, ${scale.posts.toLocaleString("en-US")} posts); median of ${runs} runs of ${seconds} s after a ${warmup} s warm-up; loads from wrk (HTTP) and pgbench -M prepared (in the database); every request runs as \`authenticated\` from a JWT`,
      load: loadAtStart,
      clients: clientLevels,
      rows,
      targets: [],
      coldStart,
      memory,
      nestedRatios,
      bigTables,
      largeCatalog,
      requestLogging,
      features,
      platform,
      factors,
      notes,
    };
    report.targets = evaluateTargets(report);
    notes.push(...explainMisses(report, report.targets));
    if (report.load > 1) {
      notes.push("Other work kept the machine busy during this run (see the load average): figures are lower and noisier than on an idle machine.");
    }

    // Only a complete run (every engine and query, default knobs for which ones) becomes the
    // published report; partial runs stay under .out/.
    const complete = !wantedEngines && !wantedQueries;
    const reportDir = complete ? join(benchDir, "report") : outDir;
    mkdirSync(reportDir, { recursive: true });
    const plotted = renderPlot(report, workDir, join(outDir, "throughput.png"));
    const bigPlotted = report.bigTables !== undefined && plotBigTables(report.bigTables, workDir, join(outDir, "bigtables.png"));
    // results.md sits beside the plots; the README one folder up.
    const plots = (prefix: string) => ({
      throughput: plotted ? `${prefix}throughput.png` : undefined,
      bigTables: bigPlotted ? `${prefix}bigtables.png` : undefined,
    });
    const markdown = renderMarkdown(report, plots(""));
    writeFileSync(join(outDir, "results.md"), markdown);
    if (complete) {
      writeFileSync(join(reportDir, "results.md"), markdown);
      if (plotted) copyFileSync(join(outDir, "throughput.png"), join(reportDir, "throughput.png"));
      if (bigPlotted) copyFileSync(join(outDir, "bigtables.png"), join(reportDir, "bigtables.png"));
      updateReadme(join(benchDir, "README.md"), renderMarkdown(report, plots("report/")));
    }
    process.stdout.write(`${markdown}\n`);
    log(`written: ${relative(repoDir, join(reportDir, "results.md"))}${plotted ? " and throughput.png" : ""}`);
  } finally {
    await closeClient(user);
    await closeClient(admin);
    for (const e of httpEngines) await e.stop();
    clearTimeout(watchdog);
    const crashes = crashLines(cluster);
    stopCluster(cluster);
    rmSync(workDir, { recursive: true, force: true });
    if (crashes.length > 0) {
      log(`the server log shows crashed backends:\n${crashes.join("\n")}`);
      mismatches++;
    }
  }
  if (mismatches > 0) {
    log(`${mismatches} engine(s) failed the answer check`);
    return 1;
  }
  return 0;
}

/** Replaces the README's latest-results section (between its markers) with this run's table. */
function updateReadme(path: string, markdown: string): void {
  const start = "<!-- latest-results:start -->";
  const end = "<!-- latest-results:end -->";
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return;
  }
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) return;
  writeFileSync(path, `${text.slice(0, i + start.length)}\n${markdown}\n${text.slice(j)}`);
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    log(`failed: ${(e as Error).stack ?? String(e)}`);
    process.exit(2);
  },
);

// Bench stage: the run's set-up and teardown. Input: the settings and the sections to run.
// Output: a BenchRun handed to the sections (the throwaway cluster with the `bench` database, its
// dataset and statement stats, pg_graphql when it installs, an admin and an authenticator
// connection, the work folders, the machine's factors), everything it started stopped after them
// or by a watchdog, and the count of failed checks (crashed backends included).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { installStatementStats } from "./backendStats";
import { connectionUrl, crashLines, startCluster, stopCluster, type Cluster } from "./cluster";
import { createDataset, resetDataset } from "./dataset";
import { benchDir, repoDir, type HttpEngine } from "./engines";
import type { PgTarget } from "./load";
import { measureMachine, noteLoad, type MachineFactors } from "./machineFactors";
import { commitDescription, loadAverage } from "./report";
import type { BenchSettings } from "./settings";

export const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

export interface BenchRun {
  settings: BenchSettings;
  /** bench/.out/<date>: this run's report; workDir, inside it, is removed at the end. */
  outDir: string;
  workDir: string;
  cluster: Cluster;
  /** A superuser on `bench`. */
  admin: pg.Client;
  /** The authenticator on `bench`, as the engines connect. */
  user: pg.Client;
  authUrl: string;
  /** pgbench's target: `bench` as the authenticator. */
  pgTarget: PgTarget;
  extensionReady: boolean;
  postgresVersion: string;
  factors: MachineFactors;
  loadAtStart: number;
  /** The code this run measures: edits made while it runs do not change it. */
  commitAtStart: string;
  /** Lines for the report's notes. */
  notes: string[];
  /** Stopped at teardown, and by the watchdog. */
  httpEngines: HttpEngine[];
  /** Failed checks (wrong answers, failed preparations): any makes the run exit non-zero. */
  mismatches: number;
  /** Puts the dataset back as generated (before every write run). */
  reset(): Promise<void>;
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

/** Runs `sections` on a fresh cluster and returns the number of failed checks. */
export async function withBenchRun(settings: BenchSettings, sections: (run: BenchRun) => Promise<void>): Promise<number> {
  const { scale, runs, seconds, warmup, watchdogMinutes } = settings;
  const outDir = join(benchDir, ".out", new Date().toISOString().replace(/[:.]/g, "-"));
  mkdirSync(outDir, { recursive: true });
  const workDir = mkdtempSync(join(outDir, "work-"));
  const notes: string[] = [];
  const loadAtStart = loadAverage();
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

    const adminClient = admin;
    const run: BenchRun = {
      settings, outDir, workDir, cluster, admin, user, authUrl,
      pgTarget: { bindir: cluster.bindir, host: cluster.host, port: cluster.port, database: "bench", user: "authenticator" },
      extensionReady, postgresVersion, factors, loadAtStart, commitAtStart, notes, httpEngines,
      mismatches: 0,
      reset: () => resetDataset(adminClient, scale),
    };
    await sections(run);
    mismatches = run.mismatches;
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
  return mismatches;
}

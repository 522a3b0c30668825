// Bench entry: CPU time per request of the HTTP engines. Input: environment knobs (CPU_SECONDS,
// CPU_RUNS, CPU_CLIENTS, BENCH_QUERIES, BENCH_ENGINES, CPU_OTHER_BUILD, CPU_PROFILE). Output: for
// our server and the HTTP floor, per bench query and client count, the CPU µs the engine's
// processes and the API role's backends spent per request (`/proc/PID/stat` around a wrk run,
// divided by the requests it got answered; the median of CPU_RUNS runs of CPU_SECONDS, engines
// taking turns): a measure that holds on a busy machine, where req/s does not. CPU_OTHER_BUILD
// names another build's `dist/main.mjs`, measured beside this one. With CPU_PROFILE=1 each engine
// runs under `node --cpu-prof` and its sampled time is printed by file and function.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { startBenchDatabase } from "./benchDatabase";
import { connectionUrl, stopCluster, type Cluster } from "./cluster";
import { readProfile, renderSummary, summarizeProfile } from "./cpuProfile";
import { benchDir, oursServerAvailable, startHttpFloor, startOurs, type HttpEngine } from "./engines";
import { benchClaims } from "./indb";
import { median, wrkRun, type HttpTarget } from "./load";
import { prepareEngine } from "./prepare";
import { benchQueries, type Prepared } from "./queries";
import { requestBody, runOnce } from "./transport";

const seconds = Number(process.env.CPU_SECONDS ?? 4);
const clientLevels = (process.env.CPU_CLIENTS ?? "1,8").split(",").map(Number);
const runs = Number(process.env.CPU_RUNS ?? 3);
const queryNames = (process.env.BENCH_QUERIES ?? "nested,shallow").split(",");
const engineIds = (process.env.BENCH_ENGINES ?? "httpFloor,ours").split(",");
const profiling = process.env.CPU_PROFILE === "1";
// Another build of the server (its dist/main.mjs) measured beside this one, in turns.
const otherBuild = process.env.CPU_OTHER_BUILD || undefined;
const ticksPerSecond = 100;

const log = (msg: string) => process.stderr.write(`[server-cpu ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

function statFields(pid: string): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: fields count from after it.
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

interface Cpu {
  user: number;
  system: number;
}

type Member = (pid: string, fields: string[]) => boolean;

/** CPU seconds in user and system mode of each process for which `member` says yes. */
function cpuSnapshot(member: Member): Map<string, Cpu> {
  const snapshot = new Map<string, Cpu>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const f = statFields(pid);
    // After the name: state(0) ppid(1) pgrp(2) ... utime(11) stime(12).
    if (f && member(pid, f)) snapshot.set(pid, { user: Number(f[11]) / ticksPerSecond, system: Number(f[12]) / ticksPerSecond });
  }
  return snapshot;
}

/** µs per request between two snapshots (user + system, and system alone); a process that
 * ended meanwhile is left out rather than counted negative. */
function perRequest(before: Map<string, Cpu>, after: Map<string, Cpu>, requests: number): { total: number; system: number } {
  let user = 0;
  let system = 0;
  for (const [pid, cpu] of after) {
    const was = before.get(pid) ?? { user: 0, system: 0 };
    user += cpu.user - was.user;
    system += cpu.system - was.system;
  }
  const us = (seconds: number) => (seconds / requests) * 1e6;
  return { total: us(user + system), system: us(system) };
}

const inGroup =
  (group: number): Member =>
  (_pid, f) =>
    Number(f[2]) === group;

/** The cluster's backends serving the API role (not autovacuum or the bench's own sessions). */
function apiBackends(cluster: Cluster): Member {
  const postmaster = Number(readFileSync(join(cluster.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  return (pid, f) => {
    if (Number(f[1]) !== postmaster) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("postgres: authenticator ");
    } catch {
      return false;
    }
  };
}

const settle = () => new Promise((r) => setTimeout(r, 300));

async function main(): Promise<void> {
  const outDir = join(benchDir, ".out", `server-cpu-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  mkdirSync(outDir, { recursive: true });
  const workDir = mkdtempSync(join(outDir, "work-"));
  const cluster = await startBenchDatabase(log);
  const engines: HttpEngine[] = [];
  try {
    const authUrl = connectionUrl(cluster, "bench", "authenticator");
    const user = new pg.Client({ connectionString: authUrl });
    await user.connect();
    const profileDir = (id: string) => join(outDir, `profile-${id}`);
    const nodeArgs = (id: string) => (profiling ? ["--cpu-prof", `--cpu-prof-dir=${profileDir(id)}`] : []);
    if (engineIds.includes("httpFloor")) engines.push(await startHttpFloor(authUrl, 5490, benchClaims, nodeArgs("httpFloor")));
    if (engineIds.includes("ours")) {
      if (!oursServerAvailable()) throw new Error("server/dist is not built: run `make install` first");
      engines.push(await startOurs(authUrl, 5491, nodeArgs("ours")));
    }
    if (otherBuild !== undefined) {
      const other = await startOurs(authUrl, 5492, nodeArgs("other"), otherBuild);
      engines.push({ ...other, label: `${other.label} (${otherBuild})` });
    }
    const backends = apiBackends(cluster);
    const prepared = new Map<HttpEngine, Prepared | undefined>();
    for (const engine of engines) prepared.set(engine, engine.dialect === "floor" ? undefined : await prepareEngine(engine, engine.dialect, user));
    const lines: string[] = [
      "| Query | Engine | clients | server CPU µs/req | of which system | backends CPU µs/req | req/s |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    ];
    for (const name of queryNames) {
      const q = benchQueries.find((b) => b.name === name);
      if (!q) throw new Error(`unknown bench query ${name}`);
      for (const clients of clientLevels) {
        const figures = new Map(engines.map((e) => [e, { server: [] as number[], system: [] as number[], db: [] as number[], rps: [] as number[] }]));
        const targets = new Map<HttpEngine, HttpTarget>();
        for (const engine of engines) {
          await runOnce(engine, user, q, prepared.get(engine));
          targets.set(engine, { url: engine.url, headers: engine.headers, body: requestBody(engine, q, prepared.get(engine)) });
          // Warm every pooled connection and the JIT before counting.
          wrkRun(targets.get(engine)!, clients, { seconds: 1, maxRequests: 1e9 }, workDir);
        }
        // Engines take turns, run by run, so a change in the machine's load falls on all of them.
        for (let run = 0; run < runs; run++) {
          for (const engine of engines) {
            await settle();
            const s0 = cpuSnapshot(inGroup(engine.processGroup));
            const b0 = cpuSnapshot(backends);
            const done = wrkRun(targets.get(engine)!, clients, { seconds, maxRequests: 1e9 }, workDir);
            await settle();
            const s1 = cpuSnapshot(inGroup(engine.processGroup));
            const b1 = cpuSnapshot(backends);
            if (done.failures > 0) throw new Error(`${engine.label} failed ${done.failures} requests: ${done.firstFailure}`);
            const own = perRequest(s0, s1, done.requests);
            const f = figures.get(engine)!;
            f.server.push(own.total);
            f.system.push(own.system);
            f.db.push(perRequest(b0, b1, done.requests).total);
            f.rps.push(done.rps);
          }
        }
        for (const engine of engines) {
          const f = figures.get(engine)!;
          const cells = [median(f.server), median(f.system), median(f.db), median(f.rps)].map((x) => x.toFixed(0));
          const line = `| ${q.title} | ${engine.label} | ${clients} | ${cells.join(" | ")} |`;
          log(`${line} runs: ${f.server.map((x) => x.toFixed(0)).join(" ")}`);
          lines.push(line);
        }
      }
    }
    await user.end();
    for (const engine of engines.splice(0)) await engine.stop();
    process.stdout.write(`${lines.join("\n")}\n`);
    if (profiling) {
      for (const id of [...engineIds, ...(otherBuild ? ["other"] : [])]) {
        let files: string[] = [];
        try {
          files = readdirSync(profileDir(id)).filter((f) => f.endsWith(".cpuprofile"));
        } catch {
          // The engine wrote no profile (it did not exit normally).
        }
        for (const file of files) {
          process.stdout.write(`\n${renderSummary(`${id} ${file}`, summarizeProfile(readProfile(join(profileDir(id), file)), 60))}`);
        }
      }
    }
  } finally {
    for (const engine of engines) engine.kill();
    stopCluster(cluster);
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});

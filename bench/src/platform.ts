// Bench stage: the platform holding many projects. Input: a cluster of its own (max_connections
// set for the projects in rotation), one platform server process with the server's defaults (idle
// data API connections close after its default minute, stated so below). Output: create latency
// one after another and 50 at once (deletes and branch creates mixed in); data API req/s over 1,
// 20 and 100 projects in rotation as ratios to one project (interleaved rounds), with the CPU each
// request took in the server, the cluster and the whole machine, and the same ratio for
// `{ __typename }` (the least a request asks of its backend); p99 with N projects of which 50 get
// traffic; data API connections at rest and under load against the budget; the server's memory
// per idle project; and a branch with data of a ~100 MB project, idle and while in use.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { runTokenCommand } from "../../server/src/management/cli/tokenCommand";
import { connectionBudget, recommendedMaxConnections } from "../../server/src/management/servers/connectionLimits";
import { startCluster as startThrowawayCluster, stopCluster, type ClusterInfo } from "../../test/harness/cluster";
import { repoDir, startServerProcess, type ServerProcess } from "./engines";
import { median, wrkRunAsync, type Bounds, type HttpTarget, type RunFigures } from "./load";
import { clusterCpuMs, machineCpuMs, postmasterPid, processCpuMs } from "./processCpu";
import { settle, summarize, type Settled } from "./settle";

export interface PlatformOptions {
  /** Projects the platform holds in the large measurement (200 by default, 1,000 in the large run). */
  projects: number;
  /** Of those, the ones that get traffic. */
  active: number;
  /** Projects in rotation for the throughput ratios. */
  rotations: number[];
  seconds: number;
  /** Rounds of the throughput ratios at least (more while their spread is wide). */
  rounds: number;
  workDir: string;
  log: (line: string) => void;
}

const positive = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`);
  return value;
};

/** The section's knobs: BENCH_PLATFORM_PROJECTS (200; the large run 1000), BENCH_PLATFORM_ACTIVE
 * (50), BENCH_PLATFORM_ROTATIONS (20,100), BENCH_PLATFORM_ROUNDS (3). */
export function platformSettings(): Pick<PlatformOptions, "projects" | "active" | "rotations" | "rounds"> {
  const projects = positive("BENCH_PLATFORM_PROJECTS", 200);
  const active = positive("BENCH_PLATFORM_ACTIVE", 50);
  const rotations = (process.env.BENCH_PLATFORM_ROTATIONS ?? "20,100").split(",").map((x) => Number(x.trim()));
  if (rotations.some((n) => !Number.isInteger(n) || n < 2)) throw new Error("BENCH_PLATFORM_ROTATIONS must be whole numbers of at least 2");
  if (projects < Math.max(...rotations, active) + 10) throw new Error("BENCH_PLATFORM_PROJECTS must exceed the largest rotation and BENCH_PLATFORM_ACTIVE by 10 at least");
  return { projects, active, rotations, rounds: positive("BENCH_PLATFORM_ROUNDS", 3) };
}

export interface Latencies {
  count: number;
  p50Ms: number;
  maxMs: number;
}

export interface PlatformFigures {
  projects: number;
  active: number;
  maxConnections: number;
  /** The data API budget of the server process on the cluster (from the server's own rule). */
  budget: number;
  idleTimeoutMs: number;
  sequential: { post: Latencies; firstAnswer: Latencies };
  concurrent: { requests: number; failed: string[]; creates: Latencies; all: Latencies };
  /** Projects in rotation → req/s, p99, failures (medians over rounds), and the ratio to one project. */
  rotation: Map<number, { rps: number; p99Ms: number; failures: number; ratio: Settled }>;
  one: { rps: number; p99Ms: number; failures: number };
  /** CPU per request (µs, medians over rounds) of the server process, of the cluster's processes
   * and of the whole machine, by projects in rotation (1: one project; -1: `active` of `projects`). */
  cpu: Map<number, CpuPerRequest>;
  /** `{ __typename }`, the least a data API request asks of its backend (no table read): one
   * project and the largest rotation, and the ratio within each round. */
  empty: { rotation: number; oneRps: number; rotationRps: number; ratio: Settled };
  /** `projects` held, `active` in rotation. */
  large: { rps: number; p99Ms: number; failures: number; p99Ratio: Settled };
  connections: { atRest: number; underLoadMax: number; waitedBeforeRest: number };
  memory: { before: number; after: number; perProjectKiB: number };
  branch: { sizeMiB: number; idleMs: number; inUseMs: number; inUseCopy: "template" | "dump"; parentFailures: number; parentRequests: number };
}

export interface CpuPerRequest {
  server: number;
  cluster: number;
  machine: number;
}

const rows = 200;
const query = "{ itemCollection(first: 20, orderBy: [{ id: AscNullsLast }]) { edges { node { id name } } } }";
const emptyQuery = "{ __typename }";
// The server's default: a shorter one would close the projects' connections between the runs of
// a round, so each run over many projects would time their backends' cold starts, not their use.
const idleTimeoutMs = 60_000;
const port = 5495;

async function call(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15 * 60_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed };
}

async function must(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await call(baseUrl, token, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

function latencies(ms: number[]): Latencies {
  return { count: ms.length, p50Ms: median(ms), maxMs: Math.max(...ms) };
}

interface Project {
  ref: string;
  key: string;
}

function clusterUrl(c: ClusterInfo, database: string): string {
  return `postgresql://postgres@/${encodeURIComponent(database)}?host=${encodeURIComponent(c.host)}&port=${c.port}`;
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? NaN);
}

/** Data API backends (application_name of the server's pools) on the cluster. */
async function dataApiBackends(admin: pg.Client): Promise<number> {
  const { rows: r } = await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where application_name = 'pg_graphql_server'");
  return r[0]!.n;
}

export async function measurePlatform(o: PlatformOptions): Promise<PlatformFigures> {
  const inRotation = Math.max(...o.rotations, o.active);
  const capacity = { maxConnections: 0, superuserReserved: 3 };
  const probe = connectionBudget({ ...capacity, maxConnections: 1000 }, {}, 1);
  const maxConnections = recommendedMaxConnections(capacity, probe, inRotation);
  const budget = connectionBudget({ ...capacity, maxConnections }, {}, 1).perProcess;
  o.log(`platform: a cluster with max_connections ${maxConnections} (the server's recommendation for ${inRotation} projects in use: a data API budget of ${budget})`);
  const cluster = startThrowawayCluster({ settings: { max_connections: String(maxConnections), shared_buffers: "256MB" } });
  let server: ServerProcess | undefined;
  const admin = new pg.Client({ connectionString: clusterUrl(cluster, "postgres") });
  admin.on("error", () => {});
  try {
    await admin.connect();
    const platformUrl = clusterUrl(cluster, "bench_platform");
    const baseUrl = `http://127.0.0.1:${port}`;
    server = await startServerProcess(process.execPath, [
      join(repoDir, "server", "bin.js"), "start",
      "--host", "127.0.0.1", "--port", String(port), "--log-level", "warn",
      "--platform-database-url", platformUrl, "--project-servers", clusterUrl(cluster, "postgres"),
      "--rate-limit", "100000000", "--ban-after-failures", "0", "--pool-idle-timeout", String(idleTimeoutMs),
    ], {}, async () => (await fetch(`${baseUrl}/health`)).status === 200);
    const pid = server.processGroup;
    const postmaster = postmasterPid(cluster);
    const token = (await runTokenCommand(platformUrl, { kind: "create", email: "platform@example.com", name: "bench" })).trim();
    const org = await must(baseUrl, token, "POST", "/v1/organizations", { name: "Platform bench" });
    const newProject = (name: string) => call(baseUrl, token, "POST", "/v1/projects", { name, organization_slug: org.slug, region: "us-east-1", db_pass: "bench-password-1" });
    const seed = async (ref: string, extra = ""): Promise<Project> => {
      await must(baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, {
        query: `create table item (id int primary key, name text not null);
                insert into item select i, 'item ' || i from generate_series(1, ${rows}) i;
                grant select on item to anon, authenticated, service_role; ${extra}`,
      });
      const keys = await must(baseUrl, token, "GET", `/v1/projects/${ref}/api-keys?reveal=true`);
      return { ref, key: (keys as { name: string; api_key: string }[]).find((k) => k.name === "service_role")!.api_key };
    };
    const graphql = (p: Project) =>
      fetch(`${baseUrl}/project/${p.ref}/graphql/v1`, { method: "POST", headers: { "content-type": "application/json", apikey: p.key }, body: JSON.stringify({ query }) });

    // Creates one after another: the POST, then the first answer on the new endpoint.
    const post: number[] = [];
    const firstAnswer: number[] = [];
    const projects: Project[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const made = await newProject(`sequential-${i}`);
      if (made.status !== 201) throw new Error(`create: ${made.status} ${JSON.stringify(made.body)}`);
      post.push(performance.now() - t0);
      const keys = await must(baseUrl, token, "GET", `/v1/projects/${made.body.ref}/api-keys?reveal=true`);
      const key = (keys as { name: string; api_key: string }[]).find((k) => k.name === "anon")!.api_key;
      for (;;) {
        const r = await fetch(`${baseUrl}/project/${made.body.ref}/graphql/v1`, { method: "POST", headers: { "content-type": "application/json", apikey: key }, body: '{"query":"{ __typename }"}' });
        if (r.status === 200) break;
        await sleep(20);
      }
      firstAnswer.push(performance.now() - t0);
      projects.push(await seed(made.body.ref));
    }
    o.log(`platform: sequential creates p50 ${median(post).toFixed(0)} ms (first answer ${median(firstAnswer).toFixed(0)} ms)`);

    // 50 at once: 40 creates, 5 deletes, 5 branch creates (two with data).
    const victims = projects.splice(5, 5);
    const parent = projects[0]!;
    const burst: Array<{ what: string; run: Promise<{ status: number; ms: number; body: any }> }> = [];
    const timed = (p: Promise<{ status: number; body: any }>) => {
      const t0 = performance.now();
      return p.then((r) => ({ ...r, ms: performance.now() - t0 }));
    };
    for (let i = 0; i < 40; i++) {
      burst.push({ what: "create", run: timed(newProject(`burst-${i}`)) });
      if (i % 8 === 0) {
        const n = i / 8;
        burst.push({ what: "delete", run: timed(call(baseUrl, token, "DELETE", `/v1/projects/${victims[n]!.ref}`)) });
        burst.push({ what: "branch", run: timed(call(baseUrl, token, "POST", `/v1/projects/${parent.ref}/branches`, { branch_name: `burst-${n}`, with_data: n % 2 === 0 })) });
      }
    }
    const answers = await Promise.all(burst.map(async (b) => ({ what: b.what, ...(await b.run) })));
    const failed = answers.filter((a) => a.status !== (a.what === "delete" ? 200 : 201)).map((a) => `${a.what}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`);
    const concurrent = { requests: answers.length, failed, creates: latencies(answers.filter((a) => a.what === "create").map((a) => a.ms)), all: latencies(answers.map((a) => a.ms)) };
    o.log(`platform: ${answers.length} at once: ${failed.length} failed, creates p50 ${concurrent.creates.p50Ms.toFixed(0)} ms, slowest ${concurrent.all.maxMs.toFixed(0)} ms`);
    for (const a of answers) if (a.what === "create" && a.status === 201) projects.push(await seed(a.body.ref));

    // Up to the projects the large measurement holds, 8 requests at a time (the server queues them).
    let made = projects.length;
    const target = o.projects - answers.filter((a) => a.what === "branch" && a.status === 201).length - 1;
    const makers = Array.from({ length: 8 }, async () => {
      while (made < target) {
        made += 1;
        const r = await newProject(`fill-${made}`);
        if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
        projects.push(await seed(r.body.ref));
        if (projects.length % 100 === 0) o.log(`platform: ${projects.length} projects`);
      }
    });
    await Promise.all(makers);
    o.log(`platform: ${projects.length + 1} projects (with the branches and the one for the branch copy to come)`);

    // Memory per idle project: every project answered once, then left until its connections close.
    await sleep(idleTimeoutMs + 2000);
    const before = rssKiB(pid);
    for (let i = 0; i < projects.length; i += 8) {
      const answered = await Promise.all(projects.slice(i, i + 8).map(graphql));
      if (answered.some((r) => r.status !== 200)) throw new Error(`a project answered ${answered.map((r) => r.status).join(",")}`);
    }
    let waitedBeforeRest = 0;
    while ((await dataApiBackends(admin)) > 0 && waitedBeforeRest < 60_000) {
      await sleep(500);
      waitedBeforeRest += 500;
    }
    const atRest = await dataApiBackends(admin);
    const after = rssKiB(pid);
    const memory = { before, after, perProjectKiB: (after - before) / projects.length };
    o.log(`platform: at rest ${atRest} data API backends; server RSS ${(before / 1024).toFixed(0)} → ${(after / 1024).toFixed(0)} MiB over ${projects.length} projects`);

    // Throughput: one project, then P projects in rotation, interleaved per round.
    const target1 = (group: Project[], body = query): HttpTarget => ({
      url: `${baseUrl}/project/${group[0]!.ref}/graphql/v1`,
      headers: { apikey: group[0]!.key },
      body: JSON.stringify({ query: body }),
      rotate: group.map((p) => ({ path: `/project/${p.ref}/graphql/v1`, headers: { apikey: p.key } })),
    });
    const bounds: Bounds = { seconds: o.seconds, maxRequests: 10_000_000 };
    let underLoadMax = 0;
    const cpuOf = () => ({ server: processCpuMs(pid), cluster: clusterCpuMs(postmaster), machine: machineCpuMs() });
    const sampled = async (t: HttpTarget): Promise<RunFigures & { cpu: CpuPerRequest }> => {
      let running = true;
      const sampler = (async () => {
        while (running) {
          underLoadMax = Math.max(underLoadMax, await dataApiBackends(admin));
          await sleep(250);
        }
      })();
      try {
        const before = cpuOf();
        const run = await wrkRunAsync(t, 8, bounds, o.workDir);
        const after = cpuOf();
        const per = (part: keyof CpuPerRequest) => ((after[part] - before[part]) * 1000) / Math.max(run.requests, 1);
        return { ...run, cpu: { server: per("server"), cluster: per("cluster"), machine: per("machine") } };
      } finally {
        running = false;
        await sampler;
      }
    };
    const groups = new Map<number, Project[]>([[1, projects.slice(0, 1)], ...o.rotations.filter((n) => n > 1).map((n) => [n, projects.slice(0, n)] as [number, Project[]]), [-1, projects.slice(-o.active)]]);
    // Warm: each group's pools open and its backends loaded.
    for (const group of groups.values()) await wrkRunAsync(target1(group), 8, { seconds: 2, maxRequests: 10_000_000 }, o.workDir);
    const runsOf = new Map<number, Array<RunFigures & { cpu: CpuPerRequest }>>([...groups.keys()].map((k) => [k, []]));
    const ratioSamples = new Map<number, number[]>([...groups.keys()].filter((k) => k !== 1).map((k) => [k, []]));
    const watched = Math.max(...o.rotations);
    const emptyRuns = { one: [] as number[], rotation: [] as number[], ratio: [] as number[] };
    const round = async () => {
      const one = await sampled(target1(groups.get(1)!));
      runsOf.get(1)!.push(one);
      for (const [n, group] of groups) {
        if (n === 1) continue;
        const r = await sampled(target1(group));
        runsOf.get(n)!.push(r);
        ratioSamples.get(n)!.push(n === -1 ? r.p99Ms / one.p99Ms : r.rps / one.rps);
      }
      const emptyOne = await sampled(target1(groups.get(1)!, emptyQuery));
      const emptyRotation = await sampled(target1(groups.get(watched)!, emptyQuery));
      emptyRuns.one.push(emptyOne.rps);
      emptyRuns.rotation.push(emptyRotation.rps);
      emptyRuns.ratio.push(emptyRotation.rps / emptyOne.rps);
    };
    // Rounds until the spread of the 100-project ratio is known (see settle.ts).
    await settle(async () => {
      await round();
      return ratioSamples.get(watched)!.at(-1)!;
    }, { min: o.rounds, max: o.rounds * 3, tolerance: 0.05 });
    const figuresOf = (n: number) => {
      const runs = runsOf.get(n)!;
      return { rps: median(runs.map((r) => r.rps)), p99Ms: median(runs.map((r) => r.p99Ms)), failures: runs.reduce((s, r) => s + r.failures, 0) };
    };
    const one = figuresOf(1);
    const cpu: PlatformFigures["cpu"] = new Map(
      [...runsOf].map(([n, runs]) => [n, { server: median(runs.map((r) => r.cpu.server)), cluster: median(runs.map((r) => r.cpu.cluster)), machine: median(runs.map((r) => r.cpu.machine)) }]),
    );
    const empty = { rotation: watched, oneRps: median(emptyRuns.one), rotationRps: median(emptyRuns.rotation), ratio: summarize(emptyRuns.ratio) };
    const rotation: PlatformFigures["rotation"] = new Map();
    for (const n of o.rotations.filter((x) => x > 1)) rotation.set(n, { ...figuresOf(n), ratio: summarize(ratioSamples.get(n)!) });
    const largeRuns = figuresOf(-1);
    const large = { ...largeRuns, p99Ratio: summarize(ratioSamples.get(-1)!) };
    for (const [n, r] of rotation) o.log(`platform: ${n} projects in rotation ${r.rps.toFixed(0)} req/s, ${r.ratio.median.toFixed(2)}× one project (${one.rps.toFixed(0)} req/s), ${r.failures} failed`);
    o.log(`platform: ${emptyQuery} in ${watched} projects in rotation ${empty.ratio.median.toFixed(2)}× one project`);
    o.log(`platform: ${o.projects} projects, ${o.active} active: p99 ${large.p99Ms.toFixed(1)} ms, ${large.p99Ratio.median.toFixed(2)}× one project's, ${large.failures} failed; at most ${underLoadMax} data API backends`);

    // A branch with data of a ~100 MB project, its parent idle and then in use.
    const big = await seed((await must(baseUrl, token, "POST", "/v1/projects", { name: "big", organization_slug: org.slug, region: "us-east-1", db_pass: "bench-password-1" })).ref,
      "create table filler (id int primary key, a text, b text);");
    // In batches: each SQL request runs within the server's statement timeout.
    for (let from = 1; from <= 650_000; from += 50_000) {
      await must(baseUrl, token, "POST", `/v1/projects/${big.ref}/database/query`, {
        query: `insert into filler select i, md5(i::text) || md5((i + 1)::text), md5((i + 2)::text) from generate_series(${from}, ${from + 49_999}) i`,
      });
    }
    const { rows: size } = await admin.query<{ bytes: string }>("select pg_database_size($1)::text as bytes", [big.ref]);
    await admin.query("checkpoint");
    const branchOnce = async (name: string): Promise<{ ms: number; ref: string }> => {
      const t0 = performance.now();
      const b = await must(baseUrl, token, "POST", `/v1/projects/${big.ref}/branches`, { branch_name: name, with_data: true });
      return { ms: performance.now() - t0, ref: b.project_ref };
    };
    await graphql(big);
    await sleep(idleTimeoutMs + 1000);
    const idleBranch = await branchOnce("idle-copy");
    const loadOnParent = wrkRunAsync({ url: `${baseUrl}/project/${big.ref}/graphql/v1`, headers: { apikey: big.key }, body: JSON.stringify({ query }) }, 2, { seconds: 12, maxRequests: 10_000_000 }, o.workDir);
    await sleep(4000);
    const busyBranch = await branchOnce("busy-copy");
    const parentLoad = await loadOnParent;
    const oid = async (ref: string) => {
      const c = new pg.Client({ connectionString: clusterUrl(cluster, ref) });
      c.on("error", () => {});
      await c.connect();
      try {
        return (await c.query<{ oid: number }>("select oid::int from pg_class where relname = 'filler'")).rows[0]!.oid;
      } finally {
        await c.end();
      }
    };
    const branch = {
      sizeMiB: Number(size[0]!.bytes) / 2 ** 20,
      idleMs: idleBranch.ms,
      inUseMs: busyBranch.ms,
      inUseCopy: (await oid(busyBranch.ref)) === (await oid(big.ref)) ? ("template" as const) : ("dump" as const),
      parentFailures: parentLoad.failures,
      parentRequests: parentLoad.requests,
    };
    o.log(`platform: branch with data of ${branch.sizeMiB.toFixed(0)} MiB: ${branch.idleMs.toFixed(0)} ms idle, ${branch.inUseMs.toFixed(0)} ms in use (${branch.inUseCopy}; the parent answered ${branch.parentRequests} requests meanwhile, ${branch.parentFailures} failed)`);

    return {
      projects: o.projects, active: o.active, maxConnections, budget, idleTimeoutMs,
      sequential: { post: latencies(post), firstAnswer: latencies(firstAnswer) },
      concurrent, rotation, one, cpu, empty, large,
      connections: { atRest, underLoadMax, waitedBeforeRest },
      memory, branch,
    };
  } finally {
    await server?.stop();
    await admin.end().catch(() => {});
    stopCluster(cluster);
  }
}

export function renderPlatform(f: PlatformFigures): string[] {
  const ms = (l: Latencies) => `${l.p50Ms.toFixed(0)} / ${l.maxMs.toFixed(0)}`;
  const spread = (s: Settled) => `${s.median.toFixed(2)}× (${s.low.toFixed(2)}–${s.high.toFixed(2)}, ${s.n} rounds)`;
  return [
    `### Platform (${f.projects} projects on one PostgreSQL server, one server process)`,
    "",
    `The cluster has \`max_connections\` ${f.maxConnections}, what the server recommends for ${Math.max(...f.rotation.keys())} projects in use at once; the server process's data API budget there is ${f.budget} connections. Server defaults: idle data API connections close after ${f.idleTimeoutMs / 1000} s. wrk: 8 clients, one project or several in turn (each request to the next project), a list of 20 with each project's service_role key.`,
    "",
    "| Case | Figure |",
    "| --- | --- |",
    `| create, one after another: POST answered, p50 / slowest ms | ${ms(f.sequential.post)} (${f.sequential.post.count} creates) |`,
    `| create, one after another: first GraphQL answer on the new endpoint after the POST was sent, p50 / slowest ms | ${ms(f.sequential.firstAnswer)} |`,
    `| ${f.concurrent.requests} at once (40 creates, 5 deletes, 5 branch creates): creates p50 / slowest ms | ${ms(f.concurrent.creates)}; slowest of all ${f.concurrent.all.maxMs.toFixed(0)} ms; ${f.concurrent.failed.length} failed |`,
    `| one project: req/s, p99 ms | ${f.one.rps.toFixed(0)}, ${f.one.p99Ms.toFixed(1)} |`,
    ...[...f.rotation].map(([n, r]) => `| ${n} projects in rotation: req/s, p99 ms, × one project's req/s | ${r.rps.toFixed(0)}, ${r.p99Ms.toFixed(1)}, ${spread(r.ratio)} |`),
    `| ${f.projects} projects held, ${f.active} in rotation: req/s, p99 ms, p99 × one project's | ${f.large.rps.toFixed(0)}, ${f.large.p99Ms.toFixed(1)}, ${spread(f.large.p99Ratio)} |`,
    `| \`${emptyQuery}\` (no table read), one project / ${f.empty.rotation} in rotation: req/s, × one project's | ${f.empty.oneRps.toFixed(0)} / ${f.empty.rotationRps.toFixed(0)}, ${spread(f.empty.ratio)} |`,
    ...[...f.cpu].map(([n, c]) => `| CPU per request, µs: the server process / the cluster's processes / the whole machine — ${n === 1 ? "one project" : n === -1 ? `${f.active} of ${f.projects} in rotation` : `${n} projects in rotation`} | ${c.server.toFixed(0)} / ${c.cluster.toFixed(0)} / ${c.machine.toFixed(0)} |`),
    `| data API backends at rest (${(f.connections.waitedBeforeRest / 1000).toFixed(1)} s after the last request) / most under load | ${f.connections.atRest} / ${f.connections.underLoadMax} (budget ${f.budget}) |`,
    `| server process memory per idle project (RSS before and after each project answered once and went idle) | ${f.memory.perProjectKiB.toFixed(0)} KiB (${(f.memory.before / 1024).toFixed(0)} → ${(f.memory.after / 1024).toFixed(0)} MiB) |`,
    `| branch with data of a ${f.branch.sizeMiB.toFixed(0)} MiB project, parent idle / in use | ${(f.branch.idleMs / 1000).toFixed(2)} s / ${(f.branch.inUseMs / 1000).toFixed(2)} s (${f.branch.inUseCopy === "template" ? "a template copy" : "copied by dump"}; the parent answered ${f.branch.parentRequests} requests of 2 clients meanwhile, ${f.branch.parentFailures} failed) |`,
    "",
    ...(f.concurrent.failed.length > 0 ? ["Failed at once: " + f.concurrent.failed.join("; "), ""] : []),
  ];
}

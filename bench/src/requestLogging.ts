// Bench stage: what recording every request costs a project's data API. Two platform servers
// over one platform database and one project, one recording requests (as deployed) and one
// started with `--request-logs off`, timed in alternation with wrk on the project's GraphQL
// endpoint → the median req/s of each per client count, and the recorded requests counted back
// through the logs endpoint. Each server is a process of its own, as deployed: neither shares
// the other's event loop, heap or compiled code.
import { join } from "node:path";
import { runTokenCommand } from "../../server/src/management/cli/tokenCommand";
import { repoDir, startServerProcess, type ServerProcess } from "./engines";
import { median, wrkRunAsync, type Bounds, type HttpTarget } from "./load";
import { machineCpuMs, processCpuMs } from "./processCpu";
import { settled, summarize, type Settled } from "./settle";

export interface RequestLoggingFigures {
  /**
   * Median req/s by client count, with request logs and without, the median CPU time (µs) each
   * server process spent per request, and the whole machine's (the server, the backends, the
   * COPYs of the log batches, autovacuum and wrk).
   */
  byClients: Map<number, {
    logged: number; unlogged: number; loggedCpuUs: number; unloggedCpuUs: number; loggedMachineUs: number; unloggedMachineUs: number;
    /** The median over pairs of runs (one of each server, back to back) of recorded / not recorded req/s. */
    pairRatio: number;
    /** Those pairs' range and count. */
    pairSpread: Settled;
  }>;
  /** Requests the logged server answered while timed, and the edge_logs rows found for them. */
  answered: number;
  recorded: number;
}

export interface RequestLoggingOptions {
  /** Superuser URL of a database on the bench cluster (the platform lives there too). */
  adminUrl: (database: string) => string;
  clients: number[];
  runs: number;
  seconds: number;
  workDir: string;
  log: (line: string) => void;
}

const rows = 200;
const minRuns = 10;
const query = "{ itemCollection(first: 20, orderBy: [{ id: AscNullsLast }]) { edges { node { id name } } } }";

async function call(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === "" ? undefined : JSON.parse(text);
}

interface Platform {
  baseUrl: string;
  server: ServerProcess;
}

async function platform(adminUrl: (database: string) => string, port: number, requestLogs: boolean): Promise<Platform> {
  const baseUrl = `http://127.0.0.1:${port}`;
  const args = [
    join(repoDir, "server", "bin.js"), "start",
    "--host", "127.0.0.1",
    "--port", String(port),
    "--pool-size", "8",
    "--log-level", "warn",
    "--platform-database-url", adminUrl("bench_platform"),
    "--project-servers", adminUrl("postgres"),
    "--rate-limit", "1000000",
    "--ban-after-failures", "0",
    "--request-logs", requestLogs ? "on" : "off",
  ];
  const server = await startServerProcess(process.execPath, args, {}, async () => (await fetch(`${baseUrl}/health`)).status === 200);
  return { baseUrl, server };
}

/** The bench's project, made through `/v1`: its ref and its service_role key. */
interface BenchProject {
  token: string;
  ref: string;
  apiKey: string;
}

/**
 * Makes the project on a platform server of its own, stopped before anything is timed, so that
 * the two timed servers have answered nothing but the data API.
 */
async function makeProject(o: RequestLoggingOptions): Promise<BenchProject> {
  const setup = await platform(o.adminUrl, 5492, false);
  try {
    const token = (await runTokenCommand(o.adminUrl("bench_platform"), { kind: "create", email: "bench@example.com", name: "bench" })).trim();
    const org = await call(setup.baseUrl, token, "POST", "/v1/organizations", { name: "Bench" });
    const project = await call(setup.baseUrl, token, "POST", "/v1/projects", { name: "logs", organization_slug: org.slug, region: "us-east-1", db_pass: "bench-password-1" });
    const ref = project.ref as string;
    await call(setup.baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, {
      query: `create table item (id int primary key, name text not null);
              insert into item select i, 'item ' || i from generate_series(1, ${rows}) i;
              grant select on item to anon, authenticated, service_role`,
    });
    const keys = await call(setup.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys?reveal=true`);
    const apiKey = (keys as { name: string; api_key: string }[]).find((k) => k.name === "service_role")!.api_key;
    return { token, ref, apiKey };
  } finally {
    await setup.server.stop();
  }
}

interface Pair {
  logged: Platform;
  unlogged: Platform;
}

/**
 * The two timed servers, the first started on port 5490. The server started first measured a few
 * percent slower than the other with both recording off; each order serves half the runs.
 */
async function startPair(o: RequestLoggingOptions, loggedFirst: boolean): Promise<Pair> {
  const first = await platform(o.adminUrl, 5490, loggedFirst);
  try {
    const second = await platform(o.adminUrl, 5491, !loggedFirst);
    return loggedFirst ? { logged: first, unlogged: second } : { logged: second, unlogged: first };
  } catch (e) {
    await first.server.stop();
    throw e;
  }
}

type Both = { logged: number[]; unlogged: number[] };
type Samples = { rps: Both; cpuUs: Both; machineUs: Both; pairRatios: number[] };
const both = (): Both => ({ logged: [], unlogged: [] });

export async function measureRequestLogging(o: RequestLoggingOptions): Promise<RequestLoggingFigures> {
  const { token, ref, apiKey } = await makeProject(o);
  const target = (running: Platform): HttpTarget => ({
    url: `${running.baseUrl}/project/${ref}/graphql/v1`,
    headers: { apikey: apiKey },
    body: JSON.stringify({ query }),
  });
  const bounds: Bounds = { seconds: o.seconds, maxRequests: 1_000_000 };
  const since = new Date(Date.now() - 1000).toISOString();
  const samples = new Map<number, Samples>(o.clients.map((c) => [c, { rps: both(), cpuUs: both(), machineUs: both(), pairRatios: [] }]));
  let answered = 0;
  // The two differ by a few percent, and single runs by up to ±8% here: at least 10 pairs in all.
  const pairsPerOrder = Math.ceil(Math.max(o.runs, minRuns) / 2);
  for (const loggedFirst of [true, false]) {
    const pair = await startPair(o, loggedFirst);
    try {
      // Both answer the query right before anything is timed.
      for (const running of [pair.logged, pair.unlogged]) {
        const t = target(running);
        const response = await fetch(t.url, { method: "POST", headers: { ...t.headers, "content-type": "application/json" }, body: t.body });
        const answer = (await response.json()) as { data?: { itemCollection?: { edges?: unknown[] } } };
        if (answer.data?.itemCollection?.edges?.length !== 20) throw new Error(`request logs bench: wrong answer ${response.status} ${JSON.stringify(answer)}`);
      }
      for (const [level, clients] of o.clients.entries()) {
        // Warm both: pools opened, the resolver loaded in their backends, and (first, longer)
        // the new processes' hot code optimized, which took several seconds of load here.
        const warm: Bounds = { seconds: level === 0 ? 6 : 1, maxRequests: 1_000_000 };
        await wrkRunAsync(target(pair.logged), 8, warm, o.workDir);
        await wrkRunAsync(target(pair.unlogged), 8, warm, o.workDir);
        const s = samples.get(clients)!;
        // At least the fixed pairs; more while the median of the pairs' ratios is not known to 1.5%.
        for (let run = 0; run < 3 * pairsPerOrder && (run < pairsPerOrder || !settled(s.pairRatios, 0.015)); run++) {
          // Alternate which goes first, so a drift in the machine's speed favours neither.
          const order = run % 2 === 0 ? (["logged", "unlogged"] as const) : (["unlogged", "logged"] as const);
          for (const which of order) {
            const running = pair[which];
            const cpuBefore = processCpuMs(running.server.processGroup);
            const machineBefore = machineCpuMs();
            const figures = await wrkRunAsync(target(running), clients, bounds, o.workDir);
            if (figures.failures > 0) throw new Error(`request logs bench: ${figures.failures} failed requests (${figures.firstFailure})`);
            s.rps[which].push(figures.rps);
            s.cpuUs[which].push(((processCpuMs(running.server.processGroup) - cpuBefore) * 1000) / figures.requests);
            s.machineUs[which].push(((machineCpuMs() - machineBefore) * 1000) / figures.requests);
            if (which === "logged") answered += figures.requests;
          }
          s.pairRatios.push(s.rps.logged.at(-1)! / s.rps.unlogged.at(-1)!);
        }
      }
    } finally {
      await pair.unlogged.server.stop();
      await pair.logged.server.stop();
    }
  }
  const byClients: RequestLoggingFigures["byClients"] = new Map();
  for (const [clients, s] of samples) {
    const row = {
      logged: median(s.rps.logged),
      unlogged: median(s.rps.unlogged),
      loggedCpuUs: median(s.cpuUs.logged),
      unloggedCpuUs: median(s.cpuUs.unlogged),
      loggedMachineUs: median(s.machineUs.logged),
      unloggedMachineUs: median(s.machineUs.unlogged),
      pairRatio: median(s.pairRatios),
      pairSpread: summarize(s.pairRatios),
    };
    byClients.set(clients, row);
    o.log(
      `request logs @${clients}: ${row.pairRatio.toFixed(3)}× (median of pairs); ${row.logged.toFixed(0)} req/s recorded, ${row.unlogged.toFixed(0)} req/s not recorded; ` +
        `server CPU ${row.loggedCpuUs.toFixed(0)} and ${row.unloggedCpuUs.toFixed(0)} µs/request, ` +
        `machine CPU ${row.loggedMachineUs.toFixed(0)} and ${row.unloggedMachineUs.toFixed(0)} µs/request ` +
        `(runs: ${s.rps.logged.map((x) => x.toFixed(0)).join(" ")} | ${s.rps.unlogged.map((x) => x.toFixed(0)).join(" ")})`,
    );
  }
  // The writer flushes about every second, and at its server's stop: every timed request must be there.
  const until = new Date().toISOString();
  const reader = await platform(o.adminUrl, 5492, false);
  try {
    const sql = "select count(*) as n from edge_logs where event_message like '%/graphql/v1'";
    const counted = await call(
      reader.baseUrl, token, "GET",
      `/v1/projects/${ref}/analytics/endpoints/logs.all?sql=${encodeURIComponent(sql)}&iso_timestamp_start=${since}&iso_timestamp_end=${until}`,
    );
    const recorded = Number(counted.result?.[0]?.n ?? 0);
    await call(reader.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
    return { byClients, answered, recorded };
  } finally {
    await reader.server.stop();
  }
}

export function renderRequestLogging(f: RequestLoggingFigures): string[] {
  return [
    "### Request logs (a project's data API through the platform server, list of 20, service_role key)",
    "",
    "| Clients | req/s, requests recorded | req/s, not recorded | ratio, median of pairs | server CPU µs/request, recorded | not recorded | machine CPU µs/request, recorded | not recorded |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...[...f.byClients].map(
      ([c, r]) =>
        `| ${c} | ${r.logged.toFixed(0)} | ${r.unlogged.toFixed(0)} | ${r.pairRatio.toFixed(2)}× (${r.pairSpread.low.toFixed(2)}–${r.pairSpread.high.toFixed(2)}, ${r.pairSpread.n} pairs) | ${r.loggedCpuUs.toFixed(0)} | ${r.unloggedCpuUs.toFixed(0)} | ` +
        `${r.loggedMachineUs.toFixed(0)} | ${r.unloggedMachineUs.toFixed(0)} |`,
    ),
    "",
    "Pairs are added past the first ten until the median of their ratios is known to 1.5% (at most three times as many). A pair is one run of each server, back to back (which goes first alternates): its ratio is taken within the pair, so a drift in the machine's speed over the section, which moved both servers' req/s by up to 20% here, does not enter it. The req/s columns are the medians over all runs.",
    "",
    "Server CPU is the server process's own; machine CPU is every core's busy time over the run (the server, the backends, the COPYs of the log batches, autovacuum, wrk), per request answered.",
    "",
    `The recording server answered ${f.answered.toLocaleString("en-US")} timed requests (warm-ups not counted) and the logs hold ${f.recorded.toLocaleString("en-US")} events for the project over that time (warm-ups included).`,
    "",
  ];
}

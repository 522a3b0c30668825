// Bench stage: load. Input: an HTTP target (URL, headers, body) or a pgbench script, a client
// count and bounds. Output: one bounded run's figures (req/s, p50, p99, failures). Loopback only.
import { execFile, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";

export interface RunFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** pgbench only: every transaction of the run, those of its warm-up included. */
  transactions?: number;
  failures: number;
  /** What the first failed request answered, to say why in the report. */
  firstFailure?: string | undefined;
}

export interface HttpTarget {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Requests go to these paths of the URL's server in turn, each with its own headers. */
  rotate?: Array<{ path: string; headers: Record<string, string> }>;
}

export interface Bounds {
  seconds: number;
  /** Per load-generator thread; a run stops at whichever bound comes first. */
  maxRequests: number;
  /**
   * pgbench only: seconds run first on the same connections and left out of the figures. Each
   * pgbench run opens new backends, whose JavaScript is interpreted until V8 has compiled its hot
   * functions (hundreds of calls in), so a warm-up run of its own warms nothing in the database.
   */
  warmupSeconds?: number;
}

function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (!(host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    throw new Error(`load targets loopback only, not ${host}`);
  }
}

function luaString(s: string): string {
  // A long bracket whose level cannot occur inside the text (level 1 at least, so that
  // `t[ [=[k]=] ]` never reads as `t[[...`).
  let level = "=";
  while (s.includes(`]${level}]`)) level += "=";
  return `[${level}[${s}]${level}]`;
}

export function wrkScript(target: HttpTarget, maxRequests: number): string {
  const headers = Object.entries(target.headers)
    .map(([k, v]) => `wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`)
    .join("\n");
  const rotation = target.rotate
    ? `local targets = {
${target.rotate.map((t) => `  { path = ${luaString(t.path)}, headers = { ${Object.entries(t.headers).map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(v)}`).join(", ")} } },`).join("\n")}
}
local turn = 0
function request()
  turn = turn + 1
  local t = targets[(turn % #targets) + 1]
  for k, v in pairs(t.headers) do wrk.headers[k] = v end
  return wrk.format(nil, t.path)
end
`
    : "";
  return `wrk.method = "POST"
wrk.body = ${luaString(target.body)}
wrk.headers["Content-Type"] = "application/json"
${headers}
${rotation}local threads = {}
function setup(thread) table.insert(threads, thread) end
count = 0
bad = 0
firstbad = ""
function response(status, headers, body)
  count = count + 1
  if status ~= 200 or string.find(body, '"errors"', 1, true) then
    bad = bad + 1
    if firstbad == "" then firstbad = status .. " " .. string.sub(body, 1, 300) end
  end
  if count >= ${maxRequests} then wrk.thread:stop() end
end
function done(summary, latency, requests)
  local b = 0
  local n = 0
  for _, t in ipairs(threads) do
    b = b + t:get("bad")
    n = n + t:get("count")
    local fb = t:get("firstbad")
    if fb ~= "" then io.write("BENCHBAD " .. string.gsub(fb, "\\n", " ") .. "\\n") end
  end
  local e = summary.errors
  io.write(string.format('BENCHJSON {"requests":%d,"counted":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"errors":%d,"bad":%d}\\n',
    summary.requests, n, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout, b))
end
`;
}

function wrkArgs(target: HttpTarget, clients: number, bounds: Bounds, workDir: string): string[] {
  assertLoopback(target.url);
  const script = join(workDir, "wrk.lua");
  writeFileSync(script, wrkScript(target, bounds.maxRequests));
  return ["-t", "1", "-c", String(clients), "-d", `${bounds.seconds}s`, "--timeout", "10s", "-s", script, target.url];
}

function wrkFigures(stdout: string): RunFigures {
  const lines = stdout.split("\n");
  const line = lines.find((l) => l.startsWith("BENCHJSON "));
  const firstBad = lines.find((l) => l.startsWith("BENCHBAD "));
  if (!line) throw new Error(`wrk printed no figures:\n${stdout}`);
  const r = JSON.parse(line.slice("BENCHJSON ".length)) as {
    requests: number; counted: number; durationUs: number; p50Us: number; p99Us: number; errors: number; bad: number;
  };
  return {
    rps: r.counted / (r.durationUs / 1e6),
    p50Ms: r.p50Us / 1000,
    p99Ms: r.p99Us / 1000,
    requests: r.counted,
    failures: r.errors + r.bad,
    firstFailure: firstBad?.slice("BENCHBAD ".length) ?? (r.errors > 0 ? `${r.errors} socket errors or timeouts` : undefined),
  };
}

export function wrkRun(target: HttpTarget, clients: number, bounds: Bounds, workDir: string): RunFigures {
  const out = spawnSync("wrk", wrkArgs(target, clients, bounds, workDir), { encoding: "utf8", timeout: (bounds.seconds + 30) * 1000 });
  if (out.status !== 0) throw new Error(`wrk failed: ${out.stderr || out.stdout}`);
  return wrkFigures(out.stdout);
}

/** The same run without blocking this process: for a server that runs inside it. */
export async function wrkRunAsync(target: HttpTarget, clients: number, bounds: Bounds, workDir: string): Promise<RunFigures> {
  const args = wrkArgs(target, clients, bounds, workDir);
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile("wrk", args, { encoding: "utf8", timeout: (bounds.seconds + 30) * 1000 }, (error, out, err) =>
      error ? reject(new Error(`wrk failed: ${err || out || error.message}`)) : resolve(out),
    ),
  );
  return wrkFigures(stdout);
}

export interface PgTarget {
  bindir: string;
  host: string;
  port: number;
  database: string;
  user: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function pgbenchArgs(pg: PgTarget, clients: number, script: string): string[] {
  return ["-n", "-M", "prepared", "-h", pg.host, "-p", String(pg.port), "-U", pg.user, "-c", String(clients), "-j", String(Math.min(clients, 2)), "-f", script];
}

/** A bounded timed pgbench run; latency percentiles come from the per-transaction log. */
export function pgbenchRun(pg: PgTarget, scriptText: string, clients: number, bounds: Bounds, workDir: string): RunFigures {
  const dir = mkdtempSync(join(workDir, "pgbench-"));
  const script = join(dir, "script.sql");
  writeFileSync(script, scriptText);
  const warmup = bounds.warmupSeconds ?? 0;
  const args = [...pgbenchArgs(pg, clients, script), "-T", String(bounds.seconds + warmup), "-l", "--log-prefix", join(dir, "log"), pg.database];
  const out = spawnSync(join(pg.bindir, "pgbench"), args, { encoding: "utf8", timeout: (bounds.seconds + warmup + 30) * 1000, cwd: dir });
  if (out.status !== 0) throw new Error(`pgbench failed:\n${out.stderr}\n${out.stdout}`);
  const tps = Number(/tps = ([\d.]+)/.exec(out.stdout)?.[1]);
  const failed = Number(/number of failed transactions: (\d+)/.exec(out.stdout)?.[1] ?? 0);
  // Each pgbench run opens new backends, and a backend's first transaction pays its cold start
  // (measured on its own elsewhere). Warm figures leave out each client's first transaction:
  // latencies from the rest, and throughput as the sum of each client's steady rate.
  const byClient = new Map<string, { endUs: number; latencyUs: number }[]>();
  for (const f of readdirSync(dir).filter((n) => n.startsWith("log"))) {
    for (const l of readFileSync(join(dir, f), "utf8").split("\n")) {
      const parts = l.split(" ");
      // Only complete transaction lines (a latency in microseconds, then the end time).
      if (parts.length < 6 || !(Number(parts[2]) > 0)) continue;
      const endUs = Number(parts[4]) * 1e6 + Number(parts[5]);
      const list = byClient.get(parts[0]!) ?? [];
      list.push({ endUs, latencyUs: Number(parts[2]) });
      byClient.set(parts[0]!, list);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  const { latencies, steadyRps, transactions } = steadyFigures([...byClient.values()], warmup);
  return {
    rps: steadyRps ?? tps,
    p50Ms: percentile(latencies, 50) / 1000,
    p99Ms: percentile(latencies, 99) / 1000,
    requests: latencies.length,
    transactions,
    failures: failed,
  };
}

/**
 * Warm figures of a pgbench run from each client's transactions (end time and latency in µs):
 * each client's first transaction pays its backend's cold start, and the first `warmupSeconds`
 * (from the first transaction's end) warm the backends, so neither counts. Throughput is the sum
 * of each client's steady rate: the transactions that ended after the warm-up over the time from
 * the client's last one before it; undefined when a client has no such span.
 */
export function steadyFigures(
  clients: Array<Array<{ endUs: number; latencyUs: number }>>,
  warmupSeconds: number,
): { latencies: number[]; steadyRps: number | undefined; transactions: number } {
  const latencies: number[] = [];
  let rate = 0;
  let steady = clients.length > 0;
  let transactions = 0;
  for (const list of clients) list.sort((a, b) => a.endUs - b.endUs);
  const cut = Math.min(...clients.map((l) => l[0]?.endUs ?? Infinity)) + warmupSeconds * 1e6;
  for (const list of clients) {
    transactions += list.length;
    // The client's last transaction ending by the cut (its first one at least) anchors the span.
    let anchor = 0;
    while (anchor + 1 < list.length && list[anchor + 1]!.endUs <= cut) anchor++;
    const warm = list.slice(anchor + 1);
    for (const t of warm) latencies.push(t.latencyUs);
    const span = warm.length > 0 ? list[list.length - 1]!.endUs - list[anchor]!.endUs : 0;
    if (span <= 0) steady = false;
    else rate += warm.length / (span / 1e6);
  }
  latencies.sort((a, b) => a - b);
  return { latencies, steadyRps: steady ? rate : undefined, transactions };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

// Bench stage: report. Input: the measured figures. Output: the Markdown table (machine,
// commit, date, PASS/MISS per target) and a gnuplot PNG of throughput per engine per query.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem, release } from "node:os";
import { join } from "node:path";
import type { EngineId } from "./engines";
import { engineLabels } from "./engines";
import type { Memory, StatementFigures } from "./backendStats";
import type { BenchQuery } from "./queries";
import { renderBigTables, type BigTableFigures } from "./bigTables";
import { renderLargeCatalog, type LargeCatalogFigures } from "./largeCatalog";
import { renderRequestLogging, type RequestLoggingFigures } from "./requestLogging";
import { renderFeatures, type FeatureFigures } from "./features";
import type { NestedRatios } from "./nestedRatios";
import { renderPlatform, type PlatformFigures } from "./platform";
import { cpuTicks, describeCounters, renderFactors, stolenShare, type CodeCacheCounters, type MachineFactors } from "./machineFactors";

export interface Cell {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

export interface Row {
  query: BenchQuery;
  engine: EngineId;
  byClients: Map<number, Cell>;
  statements: StatementFigures | undefined;
}

export interface ColdStart {
  newBackendMs: number;
  /** The first calls' range and count (new backends until the median was known to 10%). */
  spread: { low: number; high: number; n: number };
  /** The handler's code cache in those backends: read from a file, or compiled afresh. */
  codeCache: CodeCacheCounters;
  /** Starting the language handler alone (an empty DO block), when it supports DO. */
  v8StartMs: number | undefined;
  /** The first resolve once the handler has started: bundle load and schema reflection. */
  bundleAndReflectionMs: number | undefined;
  afterDdlMs: number;
  warmMs: number;
}

export interface MemoryFigures {
  label: string;
  after1: Memory;
  after1000: Memory;
  after10000: Memory;
}

export interface Target {
  name: string;
  measured: string;
  pass: boolean;
}

export interface Report {
  date: string;
  commit: string;
  machine: string;
  postgres: string;
  settings: string;
  /** 1-minute load average just before the run started its own processes. */
  load: number;
  clients: number[];
  rows: Row[];
  targets: Target[];
  coldStart: ColdStart | undefined;
  memory: MemoryFigures[];
  /** The nested query's targets, on ratios taken within rounds. */
  nestedRatios?: NestedRatios;
  bigTables?: BigTableFigures;
  largeCatalog?: LargeCatalogFigures;
  requestLogging?: RequestLoggingFigures;
  features?: FeatureFigures;
  platform?: PlatformFigures;
  /** What decides the figures that differ between machines of one size (see machineFactors.ts). */
  factors?: MachineFactors;
  notes: string[];
}

export function machineDescription(): string {
  const cpu = cpus();
  const model = cpu[0]?.model.replace(/\s+/g, " ").trim() ?? "unknown CPU";
  let distro = "";
  try {
    distro = /PRETTY_NAME="([^"]+)"/.exec(readFileSync("/etc/os-release", "utf8"))?.[1] ?? "";
  } catch {
    distro = "";
  }
  return `${cpu.length} × ${model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${distro} (Linux ${release()}), Node ${process.version}`;
}

/** The 1-minute load average: other work on the machine skews every figure, so it is reported. */
export function loadAverage(): number {
  return loadavg()[0] ?? NaN;
}

export function commitDescription(repoDir: string): string {
  try {
    const sha = execFileSync("git", ["-C", repoDir, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    // What the bench itself writes (the report, the README's latest results) does not count.
    const dirty = execFileSync(
      "git",
      ["-C", repoDir, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench/report", ":(exclude)bench/README.md"],
      { encoding: "utf8" },
    ).trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return "unknown";
  }
}

const f0 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? "–" : Math.round(n).toLocaleString("en-US"));
const f2 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? "–" : n.toFixed(2));
const f1 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? "–" : n.toFixed(1));

function ratio(a: Cell | undefined, b: Cell | undefined): string {
  if (!a || !b || b.rps === 0) return "–";
  return `${(a.rps / b.rps).toFixed(2)}×`;
}

/** `plots`: the paths of the drawn plots, relative to where the Markdown is written. */
export function renderMarkdown(r: Report, plots: { throughput?: string | undefined; bigTables?: string | undefined }): string {
  const plotFile = plots.throughput;
  const sat = Math.max(...r.clients);
  const lines: string[] = [];
  // One reading of the CPU counters ends both the run's steal and each section's.
  const end = cpuTicks();
  lines.push("## Latest results", "");
  lines.push(`- Date: ${r.date}`, `- Commit: ${r.commit}`, `- Machine: ${r.machine}`, `- PostgreSQL: ${r.postgres}`, `- Run: ${r.settings}`, `- Load average (1 min) before the run: ${r.load.toFixed(2)} on ${cpus().length} cores`);
  if (r.factors && r.factors.cpuBySection.length > 0) {
    const share = stolenShare(r.factors.cpuBySection[0]![1], end);
    lines.push(`- CPU time the hypervisor gave to other guests during the run (steal): ${(share * 100).toFixed(1)}% (per section in "What the machine brings")`);
  }
  lines.push("");
  lines.push("### Targets", "", "| Target | Measured | Result |", "| --- | --- | --- |");
  for (const t of r.targets) lines.push(`| ${t.name} | ${t.measured} | ${t.pass ? "PASS" : "MISS"} |`);
  lines.push("");
  if (plotFile) lines.push(`![Requests per second at ${sat} clients, per engine and query](${plotFile})`, "");
  lines.push(`### Throughput and latency`, "");
  const head = ["Query", "Engine"];
  for (const c of r.clients) head.push(`req/s @${c}`, `p50 ms @${c}`, `p99 ms @${c}`);
  head.push(`× HTTP floor @${sat}`, `× SQL floor @${sat}`, "statements/req", "DB ms/req", "nested SQL ms/req", "failed");
  lines.push(`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`);
  for (const row of r.rows) {
    const floorHttp = r.rows.find((x) => x.query === row.query && x.engine === "httpFloor")?.byClients.get(sat);
    const floorSql = r.rows.find((x) => x.query === row.query && x.engine === "sql")?.byClients.get(sat);
    const cells = [row.query.title, engineLabels[row.engine]];
    let failures = 0;
    for (const c of r.clients) {
      const cell = row.byClients.get(c);
      cells.push(f0(cell?.rps), f2(cell?.p50Ms), f2(cell?.p99Ms));
      failures += cell?.failures ?? 0;
    }
    const mine = row.byClients.get(sat);
    cells.push(
      ratio(mine, floorHttp),
      ratio(mine, floorSql),
      f1(row.statements?.perRequest),
      f2(row.statements?.dbMs),
      f2(row.statements?.nestedMs),
      String(failures),
    );
    lines.push(`| ${cells.join(" | ")} |`);
  }
  lines.push("");
  if (r.coldStart) {
    const c = r.coldStart;
    lines.push(`### Cold start (graphql.resolve, nested query, median of ${c.spread.n} new backends; the others median of 5)`, "", "| Case | ms |", "| --- | --- |");
    lines.push(`| first call in a new backend (range ${f2(c.spread.low)}–${f2(c.spread.high)}) | ${f2(c.newBackendMs)} |`);
    if (r.coldStart.v8StartMs !== undefined) lines.push(`| of which starting V8 (an empty \`do\` block in plv8) | ${f2(r.coldStart.v8StartMs)} |`);
    if (r.coldStart.bundleAndReflectionMs !== undefined) lines.push(`| of which loading the bundle and reflecting the schema (first call after that) | ${f2(r.coldStart.bundleAndReflectionMs)} |`);
    lines.push(`| first call after a DDL change | ${f2(r.coldStart.afterDdlMs)} |`);
    lines.push(`| warm call | ${f2(r.coldStart.warmMs)} |`, "");
    lines.push(`The handler's code cache in three more new backends making the same first call (as the same role, in sessions that may read \`plv8_info()\`): ${describeCounters(c.codeCache)}. A body compiled without its file (a first run, a cache refused) costs its first call tens of milliseconds more.`, "");
  }
  if (r.memory.length > 0) {
    lines.push("### Memory per backend (/proc/PID/smaps_rollup, MiB)", "");
    lines.push("| Backend | RSS after 1 | private after 1 | RSS after 1,000 | PSS after 1,000 | private after 1,000 | RSS after 10,000 | private after 10,000 |");
    lines.push("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const m of r.memory) {
      const cells = [m.after1.rssMiB, m.after1.privateMiB, m.after1000.rssMiB, m.after1000.pssMiB, m.after1000.privateMiB, m.after10000.rssMiB, m.after10000.privateMiB];
      lines.push(`| ${m.label} | ${cells.map(f1).join(" | ")} |`);
    }
    lines.push("", "Private is `Private_Clean + Private_Dirty` of `/proc/PID/smaps_rollup`.", "");
  }
  if (r.bigTables) lines.push(...renderBigTables(r.bigTables, plots.bigTables));
  if (r.largeCatalog) lines.push(...renderLargeCatalog(r.largeCatalog));
  if (r.requestLogging) lines.push(...renderRequestLogging(r.requestLogging));
  if (r.features) lines.push(...renderFeatures(r.features, r.clients));
  if (r.platform) lines.push(...renderPlatform(r.platform));
  if (r.factors) lines.push(...renderFactors(r.factors, end));
  if (r.notes.length > 0) {
    lines.push("### Notes", "");
    for (const n of r.notes) lines.push(`- ${n}`);
    lines.push("");
  }
  return lines.join("\n");
}

/** Draws req/s at saturation with gnuplot; returns false (and says why) when gnuplot is missing. */
export function renderPlot(r: Report, dir: string, pngPath: string): boolean {
  const sat = Math.max(...r.clients);
  const engines = [...new Set(r.rows.map((x) => x.engine))];
  const queries = [...new Set(r.rows.map((x) => x.query))];
  const dataPath = join(dir, "throughput.dat");
  const data = ["query " + engines.map((e) => JSON.stringify(engineLabels[e])).join(" ")];
  for (const q of queries) {
    const values = engines.map((e) => {
      const cell = r.rows.find((x) => x.query === q && x.engine === e)?.byClients.get(sat);
      return cell && cell.rps > 0 ? cell.rps.toFixed(1) : "NaN";
    });
    data.push(`${JSON.stringify(q.title)} ${values.join(" ")}`);
  }
  writeFileSync(dataPath, data.join("\n") + "\n");
  const columns = engines.map((_, i) => `'${dataPath}' using ${i + 2}:xtic(1) title columnheader(${i + 2})`).join(", ");
  const script = `set terminal pngcairo noenhanced size 1400,700 font "DejaVu Sans,10"
set output '${pngPath}'
set title "Requests per second at ${sat} clients (higher is better, log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [10:*]
set grid ytics
set key outside right top vertical
set xtics rotate by -20
plot ${columns}
`;
  const scriptPath = join(dir, "throughput.gp");
  writeFileSync(scriptPath, script);
  const out = spawnSync("gnuplot", [scriptPath], { encoding: "utf8" });
  if (out.error || out.status !== 0) {
    process.stderr.write(`gnuplot failed (install Debian's gnuplot-nox): ${out.error?.message ?? out.stderr}\n`);
    return false;
  }
  return true;
}

// Bench stage: publishing. Input: the run and every section's figures. Output: the report with
// its targets judged and its notes, as results.md and the plots under bench/.out/<date>/, the
// table on stdout, and, for a complete run, bench/report/ and README.md's latest results.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { BenchRun } from "./benchRun";
import { log } from "./benchRun";
import { plotBigTables } from "./bigTables";
import { benchDir, repoDir } from "./engines";
import { machineDescription, renderMarkdown, renderPlot, type Report } from "./report";
import { completeRun } from "./settings";
import { evaluateTargets, explainMisses } from "./targets";

/** What the sections measured: the report but for what the run itself knows. */
export type SectionFigures = Pick<
  Report,
  "rows" | "coldStart" | "memory" | "nestedRatios" | "bigTables" | "largeCatalog" | "requestLogging" | "features" | "platform"
>;

export function publishReport(run: BenchRun, figures: SectionFigures): void {
  const { settings: { scale, runs, seconds, warmup, clientLevels }, notes, outDir, workDir } = run;
  const failedUnderLoad = figures.rows.reduce((n, row) => n + [...row.byClients.values()].reduce((m, c) => m + c.failures, 0), 0);
  if (failedUnderLoad > 0) notes.push(`${failedUnderLoad} requests failed under load (HTTP status other than 200, or a GraphQL error); see the "failed" column.`);
  const report: Report = {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    commit: run.commitAtStart,
    machine: machineDescription(),
    postgres: run.postgresVersion,
    settings: `${scale.kind} scale (${scale.accounts.toLocaleString("en-US")} accounts, ${scale.blogs.toLocaleString("en-US")} blogs, ${scale.posts.toLocaleString("en-US")} posts); median of ${runs} runs of ${seconds} s after a ${warmup} s warm-up; loads from wrk (HTTP) and pgbench -M prepared (in the database); every request runs as \`authenticated\` from a JWT`,
    load: run.loadAtStart,
    clients: clientLevels,
    targets: [],
    ...figures,
    factors: run.factors,
    notes,
  };
  report.targets = evaluateTargets(report);
  notes.push(...explainMisses(report, report.targets));
  if (report.load > 1) {
    notes.push("Other work kept the machine busy during this run (see the load average): figures are lower and noisier than on an idle machine.");
  }

  // Only a complete run becomes the published report; partial runs stay under .out/.
  const complete = completeRun(run.settings);
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

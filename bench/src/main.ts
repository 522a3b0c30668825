// Bench entry: runs the whole benchmark. Input: environment knobs (BENCH_SCALE, BENCH_SECONDS,
// BENCH_RUNS, BENCH_WARMUP, BENCH_ENGINES, BENCH_QUERIES; see settings.ts). Output: results.md
// and throughput.png in bench/report/ (and a copy under bench/.out/), the table on stdout, and a
// non-zero exit when any engine's answer differs from the hand-written SQL's.
import { checkAnswers } from "./answerCheck";
import { log, withBenchRun } from "./benchRun";
import { measureNestedRounds } from "./nestedRounds";
import { publishReport } from "./publishReport";
import { countStatements, timeQueryMatrix } from "./queryMatrix";
import { bigTablesSection, coldStartSection, featuresSection, largeCatalogSection, platformSection, requestLoggingSection } from "./sections";
import { readSettings } from "./settings";
import { startEngines } from "./startEngines";

// Read before anything starts: a bad knob stops the run here.
const settings = readSettings();

async function main(): Promise<number> {
  const mismatches = await withBenchRun(settings, async (run) => {
    const engines = await startEngines(run);
    const check = await checkAnswers(run, engines);
    const rows = await timeQueryMatrix(run, check);
    const nestedRatios = await measureNestedRounds(run, check);
    await countStatements(run, check, rows);
    const { coldStart, memory } = await coldStartSection(run, check);
    const bigTables = await bigTablesSection(run);
    const largeCatalog = await largeCatalogSection(run);
    const features = await featuresSection(run);
    const requestLogging = await requestLoggingSection(run);
    const platform = await platformSection(run);
    publishReport(run, { rows, nestedRatios, coldStart, memory, bigTables, largeCatalog, features, requestLogging, platform });
  });
  if (mismatches > 0) {
    log(`${mismatches} engine(s) failed the answer check`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    log(`failed: ${(e as Error).stack ?? String(e)}`);
    process.exit(2);
  },
);

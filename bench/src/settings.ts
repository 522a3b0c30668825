// Bench stage: settings. Input: the BENCH_* environment knobs of the whole run (see README.md).
// Output: the run's settings, checked (a bad knob stops the run before anything starts), and
// which engines and sections they ask for.
import { scaleNamed, type Scale } from "./dataset";
import type { EngineId } from "./engines";

export interface BenchSettings {
  scale: Scale;
  /** Length of one timed run (pgbench and wrk take whole seconds). */
  seconds: number;
  runs: number;
  warmup: number;
  clientLevels: number[];
  /** Requests whose statements are counted per engine and query. */
  statementSamples: number;
  maxRequestsPerRun: number;
  /** BENCH_ENGINES and BENCH_QUERIES; undefined: all of them. */
  engines: string[] | undefined;
  queries: string[] | undefined;
  bigRows: number[];
  catalogTables: number;
  watchdogMinutes: number;
}

const knob = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  // pgbench and wrk take whole seconds.
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`);
  return value;
};
const list = (name: string): string[] | undefined => process.env[name]?.split(",").map((s) => s.trim()).filter(Boolean);

export function readSettings(): BenchSettings {
  const scale = scaleNamed(process.env.BENCH_SCALE ?? "default");
  const seconds = knob("BENCH_SECONDS", 2);
  const runs = knob("BENCH_RUNS", 3);
  const warmup = knob("BENCH_WARMUP", 1);
  const engines = list("BENCH_ENGINES");
  const queries = list("BENCH_QUERIES");
  const bigRows = (list("BENCH_BIG_ROWS") ?? ["10000", "100000", "1000000"]).map(Number);
  if (bigRows.some((n) => !Number.isInteger(n) || n < 20 || n % 20 !== 0)) throw new Error("BENCH_BIG_ROWS must be whole multiples of 20");
  const catalogTables = knob("BENCH_CATALOG_TABLES", 500);
  const watchdogMinutes = knob("BENCH_WATCHDOG_MINUTES", scale.kind === "large" ? 240 : 120);
  return {
    scale, seconds, runs, warmup, clientLevels: [1, 8], statementSamples: 20, maxRequestsPerRun: 2_000_000,
    engines, queries, bigRows, catalogTables, watchdogMinutes,
  };
}

export function engineWanted(s: BenchSettings, id: EngineId): boolean {
  return !s.engines || s.engines.includes(id);
}

/** A query or a section (bigtables, catalog, logging, features, platform) named by BENCH_QUERIES. */
export function queryWanted(s: BenchSettings, name: string): boolean {
  return !s.queries || s.queries.includes(name);
}

/** Every engine and query (the default knobs for which ones): the run that gets published. */
export function completeRun(s: BenchSettings): boolean {
  return !s.engines && !s.queries;
}

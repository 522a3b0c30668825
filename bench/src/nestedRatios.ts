// Bench stage: the nested query's targets, judged on ratios taken within rounds. Input: the
// pgbench scripts of the text floor, graphql.resolve, graphql._resolve_text and the resolver's
// answer returned alone as text and as jsonb; the HTTP floor's and our server's wrk targets.
// Output: per client count, the median over rounds (with its spread) of graphql.resolve's time
// over "the floor plus returning our answer as jsonb", _resolve_text's over the text floor's, and
// our server's req/s over the HTTP floor's. Each round runs every script back to back (their order
// turning from round to round), so a drift of the machine's speed moves all of a round alike.
import { wrkRun, type Bounds, type HttpTarget, type PgTarget } from "./load";
import { ROUNDS, settled, summarize, type Settled } from "./settle";
import { pgbenchRunWithCpu } from "./processCpu";

export interface InDatabaseScripts {
  floor: string;
  /** The floor's own answer cast to jsonb. */
  floorJsonb: string;
  resolve: string;
  resolveText: string;
  answerText: string;
  answerJsonb: string;
}

export interface InDatabaseRatios {
  /** graphql.resolve's time over the floor's time plus what returning its answer as jsonb costs. */
  resolveVsBound: Settled;
  /** graphql._resolve_text's time over the text floor's. */
  resolveTextVsFloor: Settled;
  /** That bound, and the floor cast to jsonb, over the text floor (printed beside). */
  boundVsFloor: Settled;
  floorJsonbVsFloor: Settled;
  /** graphql.resolve's time over the text floor's (the retired target's measure). */
  resolveVsFloor: Settled;
  /** The two judged ratios on the backends' CPU time per request instead of wall time (read
   * from the postmaster's counters of its ended children): other work on the machine moves
   * them much less. */
  cpu?: { resolveVsBound: Settled; resolveTextVsFloor: Settled };
}

export interface NestedRatios {
  inDatabase: Map<number, InDatabaseRatios>;
  /** Our server's req/s over the HTTP floor's. */
  overHttp: Map<number, Settled>;
}

/** `postmaster`: its pid, for the backends' CPU time (pgbench's backends end with each run). */
export function measureInDatabase(target: PgTarget, scripts: InDatabaseScripts, clients: number, bounds: Bounds, workDir: string, postmaster?: number): InDatabaseRatios {
  const cpuRatios = { resolveVsBound: [] as number[], resolveTextVsFloor: [] as number[] };
  const names = Object.keys(scripts) as Array<keyof InDatabaseScripts>;
  const collected: Record<Exclude<keyof InDatabaseRatios, "cpu">, number[]> = { resolveVsBound: [], resolveTextVsFloor: [], boundVsFloor: [], floorJsonbVsFloor: [], resolveVsFloor: [] };
  let round = 0;
  const sample = () => {
    // Time per request of each script in this round, in a turning order.
    const ms = {} as Record<keyof InDatabaseScripts, number>;
    const cpu = {} as Record<keyof InDatabaseScripts, number>;
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      const { run, cpuMsPerRequest } = pgbenchRunWithCpu(target, scripts[name], clients, bounds, workDir, postmaster);
      ms[name] = 1000 / run.rps;
      if (cpuMsPerRequest !== undefined) cpu[name] = cpuMsPerRequest;
    }
    if (names.every((n) => cpu[n] !== undefined)) {
      cpuRatios.resolveVsBound.push(cpu.resolve / (cpu.floor + cpu.answerJsonb - cpu.answerText));
      cpuRatios.resolveTextVsFloor.push(cpu.resolveText / cpu.floor);
    }
    round += 1;
    const bound = ms.floor + ms.answerJsonb - ms.answerText;
    collected.resolveTextVsFloor.push(ms.resolveText / ms.floor);
    collected.boundVsFloor.push(bound / ms.floor);
    collected.floorJsonbVsFloor.push(ms.floorJsonb / ms.floor);
    collected.resolveVsFloor.push(ms.resolve / ms.floor);
    const ratio = ms.resolve / bound;
    collected.resolveVsBound.push(ratio);
    // Settled on the noisier of the two judged ratios.
    return ratio;
  };
  settleSync(sample, () => collected.resolveTextVsFloor);
  return {
    resolveVsBound: summarize(collected.resolveVsBound),
    resolveTextVsFloor: summarize(collected.resolveTextVsFloor),
    boundVsFloor: summarize(collected.boundVsFloor),
    floorJsonbVsFloor: summarize(collected.floorJsonbVsFloor),
    resolveVsFloor: summarize(collected.resolveVsFloor),
    ...(cpuRatios.resolveVsBound.length > 0 ? { cpu: { resolveVsBound: summarize(cpuRatios.resolveVsBound), resolveTextVsFloor: summarize(cpuRatios.resolveTextVsFloor) } } : {}),
  };
}

/** Rounds until both `sample`'s ratios and `other()`'s are settled (see settle.ts). */
function settleSync(sample: () => number, other: () => number[]): void {
  const taken: number[] = [];
  for (;;) {
    taken.push(sample());
    const enough = taken.length >= ROUNDS.min && settled(taken, ROUNDS.tolerance) && settled(other(), ROUNDS.tolerance);
    if (enough || taken.length >= ROUNDS.max) return;
  }
}

export function measureOverHttp(ours: HttpTarget, floor: HttpTarget, clients: number, bounds: Bounds, workDir: string): Settled {
  wrkRun(ours, clients, { seconds: 1, maxRequests: bounds.maxRequests }, workDir);
  wrkRun(floor, clients, { seconds: 1, maxRequests: bounds.maxRequests }, workDir);
  const ratios: number[] = [];
  while (ratios.length < ROUNDS.min || (ratios.length < ROUNDS.max && !settled(ratios, ROUNDS.tolerance))) {
    const first = ratios.length % 2 === 0;
    const a = wrkRun(first ? ours : floor, clients, bounds, workDir);
    const b = wrkRun(first ? floor : ours, clients, bounds, workDir);
    if (a.failures + b.failures > 0) throw new Error(`nested over HTTP: ${a.failures + b.failures} failed requests (${a.firstFailure ?? b.firstFailure})`);
    ratios.push(first ? a.rps / b.rps : b.rps / a.rps);
  }
  return summarize(ratios);
}

export function spread(s: Settled): string {
  return `${s.median.toFixed(2)}× (${s.low.toFixed(2)}–${s.high.toFixed(2)} over ${s.n} rounds)`;
}

// Bench stage: an in-database feature pair timed in interleaved rounds. Input: the pgbench scripts
// of graphql.resolve (mine), the hand-written SQL (theirs) and optionally another way shown beside;
// the reset to run before each. Output: per round, each script's req/s and its backends' CPU time
// per request; the judged ratios (theirs' req/s over mine's, i.e. mine's time over theirs') taken
// within rounds, with their medians and spreads. Each round runs the scripts back to back in a
// turning order, so a drift of the machine's speed moves all of a round alike (as nestedRatios.ts).
import type { Bounds, PgTarget, RunFigures } from "./load";
import { median } from "./load";
import { pgbenchRunWithCpu } from "./processCpu";
import type { Cell } from "./report";
import { ROUNDS, settled, summarize, type Settled } from "./settle";

export interface PairScripts {
  mine: string;
  theirs: string;
  beside?: string;
}

type Name = keyof PairScripts;

export interface PairRounds {
  cells: Partial<Record<Name, Cell>>;
  /** mine's time per request over theirs', and over beside's. */
  time: Settled;
  besideTime?: Settled;
  /** The same on the backends' CPU time per request (the postmaster's ended children). */
  cpu?: Settled;
}

/** `postmaster`: its pid, for the backends' CPU time (pgbench's backends end with each run). */
export async function measurePairInRounds(
  target: PgTarget,
  scripts: PairScripts,
  clients: number,
  bounds: Bounds,
  workDir: string,
  before: () => Promise<void>,
  postmaster?: number,
): Promise<PairRounds> {
  const names = (Object.keys(scripts) as Name[]).filter((n) => scripts[n] !== undefined);
  const figures: Record<Name, RunFigures[]> = { mine: [], theirs: [], beside: [] };
  const time: number[] = [];
  const besideTime: number[] = [];
  const cpu: number[] = [];
  while (time.length < ROUNDS.min || (time.length < ROUNDS.max && !(settled(time, ROUNDS.tolerance) && settled(cpu.length > 0 ? cpu : time, ROUNDS.tolerance)))) {
    const round = time.length;
    const rps = {} as Record<Name, number>;
    const cpuPerRequest = {} as Record<Name, number>;
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      await before();
      const { run, cpuMsPerRequest } = pgbenchRunWithCpu(target, scripts[name]!, clients, bounds, workDir, postmaster);
      figures[name].push(run);
      rps[name] = run.rps;
      if (cpuMsPerRequest !== undefined) cpuPerRequest[name] = cpuMsPerRequest;
    }
    time.push(rps.theirs / rps.mine);
    if (rps.beside !== undefined) besideTime.push(rps.beside / rps.mine);
    if (cpuPerRequest.mine !== undefined && cpuPerRequest.theirs !== undefined) cpu.push(cpuPerRequest.mine / cpuPerRequest.theirs);
  }
  const cells: Partial<Record<Name, Cell>> = {};
  for (const name of names) {
    const runs = figures[name];
    cells[name] = {
      rps: median(runs.map((f) => f.rps)),
      p50Ms: median(runs.map((f) => f.p50Ms)),
      p99Ms: median(runs.map((f) => f.p99Ms)),
      failures: runs.reduce((n, f) => n + f.failures, 0),
    };
  }
  return {
    cells,
    time: summarize(time),
    ...(besideTime.length > 0 ? { besideTime: summarize(besideTime) } : {}),
    ...(cpu.length > 0 ? { cpu: summarize(cpu) } : {}),
  };
}

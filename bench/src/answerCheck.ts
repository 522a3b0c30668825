// Bench stage: preparation and answer checks, before any timing. Input: the run, its engines and
// the queries BENCH_QUERIES names. Output: which engine answers which query as the hand-written
// SQL does (only those pairs are timed); every wrong answer or failed preparation is counted.
import type { BenchRun } from "./benchRun";
import { log } from "./benchRun";
import { canonicalFromGraphql, canonicalValue, firstDifference, sameAnswer, type Json } from "./canonical";
import type { Engine, EngineId } from "./engines";
import { sqlAnswer } from "./indb";
import { prepareEngine } from "./prepare";
import { benchQueries, type BenchQuery, type Prepared } from "./queries";
import { queryWanted } from "./settings";
import { runOnce } from "./transport";

export interface ReadyEngine {
  engine: Engine;
  /** The node id and cursor its queries need; undefined for the SQL floor. */
  prepared: Prepared | undefined;
}

export interface AnswerCheck {
  queries: BenchQuery[];
  /** The engines that answered at least one query right, in the order they started. */
  engines: ReadyEngine[];
  passed(r: ReadyEngine, q: BenchQuery): boolean;
  /** The engine `id` when it answered `q` right. */
  readyOn(id: EngineId, q: BenchQuery | undefined): ReadyEngine | undefined;
}

/** The key of an engine's figures for a query. */
export const answerKey = (engine: EngineId, query: string) => `${engine}/${query}`;

export async function checkAnswers(run: BenchRun, engines: Engine[]): Promise<AnswerCheck> {
  const { user, notes, reset } = run;
  const queries = benchQueries.filter((q) => queryWanted(run.settings, q.name));
  const ready: ReadyEngine[] = [];
  for (const engine of engines) {
    let prepared: Prepared | undefined;
    try {
      if (engine.dialect !== "floor") prepared = await prepareEngine(engine, engine.dialect, user);
    } catch (e) {
      run.mismatches++;
      log(`MISMATCH ${engine.label}: preparation failed: ${(e as Error).message}`);
      notes.push(`${engine.label}: preparation failed, so its answers could not be checked.`);
      continue;
    }
    ready.push({ engine, prepared });
  }
  const expected = new Map<BenchQuery, Json>();
  for (const q of queries) {
    await reset();
    expected.set(q, canonicalValue((await sqlAnswer(user, q.sql)) as Json));
  }
  // An engine is timed on the queries it answers correctly; any wrong answer fails the run.
  const passedKeys = new Set<string>();
  const passed = (r: ReadyEngine, q: BenchQuery) => passedKeys.has(answerKey(r.engine.id, q.name));
  for (const r of ready) {
    const wrong: string[] = [];
    for (const q of queries) {
      await reset();
      try {
        const actual = canonicalFromGraphql(await runOnce(r.engine, user, q, r.prepared));
        if (sameAnswer(expected.get(q)!, actual)) passedKeys.add(answerKey(r.engine.id, q.name));
        else {
          wrong.push(q.name);
          log(`MISMATCH ${r.engine.label} / ${q.name}: ${firstDifference(expected.get(q)!, actual)}`);
        }
      } catch (e) {
        wrong.push(q.name);
        log(`MISMATCH ${r.engine.label} / ${q.name}: ${(e as Error).message}`);
      }
    }
    if (wrong.length === 0) log(`answers match the SQL: ${r.engine.label}`);
    else {
      run.mismatches++;
      notes.push(`${r.engine.label}: the answer to ${wrong.join(", ")} differs from the hand-written SQL's (or is an error); not timed there.`);
    }
  }
  const checked = ready.filter((r) => queries.some((q) => passed(r, q)));
  await reset();
  return {
    queries,
    engines: checked,
    passed,
    readyOn: (id, q) => checked.find((r) => r.engine.id === id && q !== undefined && passed(r, q)),
  };
}

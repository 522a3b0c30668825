// Bench stage: verdicts. Input: the measured report. Output: PASS/MISS for each target of the
// benchmark issue, judged at every client count measured (a target holds only if it holds at all).
import type { EngineId } from "./engines";
import type { Cell, Report, Target } from "./report";
import type { BenchQuery } from "./queries";

function cellOf(r: Report, q: BenchQuery | undefined, engine: EngineId, clients: number): Cell | undefined {
  return r.rows.find((x) => x.query === q && x.engine === engine)?.byClients.get(clients);
}

/** Per client count, numerator rps / denominator rps; undefined when either is missing. */
function ratios(r: Report, q: BenchQuery | undefined, num: EngineId, den: EngineId[]): Map<number, { value: number; against: EngineId }> | undefined {
  const out = new Map<number, { value: number; against: EngineId }>();
  for (const c of r.clients) {
    const mine = cellOf(r, q, num, c);
    // Against several engines, the strongest one is the one to beat.
    const theirs = den
      .map((e) => ({ e, cell: cellOf(r, q, e, c) }))
      .filter((x): x is { e: EngineId; cell: Cell } => x.cell !== undefined && x.cell.rps > 0)
      .sort((a, b) => b.cell.rps - a.cell.rps)[0];
    if (!mine || !theirs) return undefined;
    out.set(c, { value: mine.rps / theirs.cell.rps, against: theirs.e });
  }
  return out;
}

const shortName: Record<EngineId, string> = {
  sql: "SQL floor",
  resolve: "resolve",
  httpFloor: "HTTP floor",
  ours: "ours",
  postgraphile4: "v4",
  postgraphile5: "v5",
};

export function evaluateTargets(r: Report): Target[] {
  const targets: Target[] = [];
  const nested = r.rows.find((x) => x.query.name === "nested")?.query;

  // "Within 1.3× the SQL floor" is about time per request: floor rps / resolve rps ≤ 1.3.
  const inDb = ratios(r, nested, "sql", ["resolve"]);
  targets.push({
    name: "In the database: warm `graphql.resolve` within 1.3× the SQL floor (nested query, time per request)",
    measured: inDb ? [...inDb].map(([c, x]) => `${x.value.toFixed(2)}× @${c}`).join(", ") : "not measured",
    pass: inDb !== undefined && [...inDb.values()].every((x) => x.value <= 1.3),
  });

  const reads = [...new Set(r.rows.map((x) => x.query))].filter((q) => q.kind === "read");
  for (const q of reads) {
    const vsPg = ratios(r, q, "ours", ["postgraphile4", "postgraphile5"]);
    targets.push({
      name: `Over HTTP: at least 1.5× PostGraphile's req/s — ${q.title}`,
      measured: vsPg ? [...vsPg].map(([c, x]) => `${x.value.toFixed(2)}× ${shortName[x.against]} @${c}`).join(", ") : "not measured",
      pass: vsPg !== undefined && [...vsPg.values()].every((x) => x.value >= 1.5),
    });
  }

  const vsFloor = ratios(r, nested, "ours", ["httpFloor"]);
  targets.push({
    name: "Over HTTP: nested query within 0.8× of the HTTP floor's req/s",
    measured: vsFloor ? [...vsFloor].map(([c, x]) => `${x.value.toFixed(2)}× @${c}`).join(", ") : "not measured",
    pass: vsFloor !== undefined && [...vsFloor.values()].every((x) => x.value >= 0.8),
  });

  targets.push({
    name: "Cold start of a backend (bundle load + reflection) under 50 ms",
    measured: r.coldStart ? `${r.coldStart.newBackendMs.toFixed(1)} ms (after DDL: ${r.coldStart.afterDdlMs.toFixed(1)} ms)` : "not measured",
    pass: r.coldStart !== undefined && r.coldStart.newBackendMs < 50,
  });
  return targets;
}

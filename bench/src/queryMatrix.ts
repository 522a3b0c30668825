// Bench stage: the query matrix. Input: the run and the answer check (which engine answered which
// query right). Output: a row per query and engine: the median of bounded runs after a warm-up at
// each client count, and then the statements and database time per request (pg_stat_statements).
import { answerKey, type AnswerCheck, type ReadyEngine } from "./answerCheck";
import { statementFigures, type StatementFigures } from "./backendStats";
import type { BenchRun } from "./benchRun";
import { log } from "./benchRun";
import { resolveScript, sqlScript } from "./indb";
import { median, pgbenchRun, wrkRun, type Bounds, type RunFigures } from "./load";
import type { BenchQuery } from "./queries";
import type { Cell, Row } from "./report";
import { requestBody, runOnce } from "./transport";

function oneRun(run: BenchRun, r: ReadyEngine, q: BenchQuery, clients: number, bounds: Bounds): RunFigures {
  switch (r.engine.kind) {
    case "http":
      return wrkRun({ url: r.engine.url, headers: r.engine.headers, body: requestBody(r.engine, q, r.prepared) }, clients, bounds, run.workDir);
    case "pgbench": {
      const script = r.engine.dialect === "floor" ? sqlScript(q.sql) : resolveScript(q.graphql(r.engine.dialect, r.prepared!));
      return pgbenchRun(run.pgTarget, script, clients, bounds, run.workDir);
    }
    default:
      throw new Error(`unknown engine kind ${JSON.stringify(r.engine satisfies never)}`);
  }
}

/** Timed runs: warm-up, then the median of bounded runs, per query, engine and client count. */
export async function timeQueryMatrix(run: BenchRun, check: AnswerCheck): Promise<Row[]> {
  const { settings: { clientLevels, warmup, runs, seconds, maxRequestsPerRun }, notes, reset } = run;
  const rows: Row[] = [];
  for (const q of check.queries) {
    for (const r of check.engines) {
      if (!check.passed(r, q)) continue;
      const row: Row = { query: q, engine: r.engine.id, byClients: new Map(), statements: undefined };
      for (const clients of clientLevels) {
        const figures: RunFigures[] = [];
        try {
          if (q.kind === "write") await reset();
          // A pgbench run warms its own new backends (warmupSeconds); an HTTP engine's pool stays.
          if (r.engine.kind === "http") oneRun(run, r, q, clients, { seconds: warmup, maxRequests: maxRequestsPerRun });
          for (let i = 0; i < runs; i++) {
            if (q.kind === "write") await reset();
            figures.push(oneRun(run, r, q, clients, { seconds, maxRequests: maxRequestsPerRun, warmupSeconds: warmup }));
          }
        } catch (e) {
          const message = (e as Error).message.split("\n").slice(0, 3).join(" ");
          log(`${q.name} ${r.engine.label} @${clients}: the load run failed: ${message}`);
          notes.push(`${r.engine.label}, ${q.title} at ${clients} client(s): the load run failed (${message}).`);
          continue;
        }
        const failure = figures.find((f) => f.firstFailure)?.firstFailure;
        if (failure) log(`${q.name} ${r.engine.label} @${clients}: a request failed: ${failure}`);
        const cell: Cell = {
          rps: median(figures.map((f) => f.rps)),
          p50Ms: median(figures.map((f) => f.p50Ms)),
          p99Ms: median(figures.map((f) => f.p99Ms)),
          failures: figures.reduce((n, f) => n + f.failures, 0),
        };
        row.byClients.set(clients, cell);
        log(`${q.name.padEnd(9)} ${r.engine.label.padEnd(26)} @${clients}: ${cell.rps.toFixed(0)} req/s, p50 ${cell.p50Ms.toFixed(2)} ms, p99 ${cell.p99Ms.toFixed(2)} ms${cell.failures ? `, ${cell.failures} failed` : ""}`);
      }
      rows.push(row);
    }
    if (q.kind === "write") await reset();
  }
  return rows;
}

/**
 * Statements and database time per request, from pg_stat_statements, into `rows`: run after the
 * timed runs so that every engine's pooled backends are warm (the pgbench engines' statements sent
 * over the same role-switching transaction).
 */
export async function countStatements(run: BenchRun, check: AnswerCheck, rows: Row[]): Promise<void> {
  const { admin, user, reset } = run;
  const statements = new Map<string, StatementFigures>();
  for (const r of check.engines) {
    for (const q of check.queries) {
      if (!check.passed(r, q)) continue;
      await reset();
      const figures = await statementFigures(admin, "bench", run.settings.statementSamples, async () => {
        await runOnce(r.engine, user, q, r.prepared);
      });
      statements.set(answerKey(r.engine.id, q.name), figures);
    }
  }
  await reset();
  for (const row of rows) row.statements = statements.get(answerKey(row.engine, row.query.name));
}

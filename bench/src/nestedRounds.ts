// Bench stage: the nested query's rounds. Input: the run and the answer check (the SQL floor,
// graphql.resolve, the HTTP floor and our server, where each answered the nested query right).
// Output: the ratios its targets are judged on, taken within interleaved rounds (nestedRatios.ts),
// in the database and over HTTP at each client count.
import type { AnswerCheck, ReadyEngine } from "./answerCheck";
import type { BenchRun } from "./benchRun";
import { log } from "./benchRun";
import { postmasterPid } from "./processCpu";
import type { HttpEngine } from "./engines";
import { answerScripts, resolveScript, resolveText, sqlScript } from "./indb";
import type { Bounds } from "./load";
import { noteLoad } from "./machineFactors";
import { measureInDatabase, measureOverHttp, spread, type InDatabaseScripts, type NestedRatios } from "./nestedRatios";
import { requestBody } from "./transport";

export async function measureNestedRounds(run: BenchRun, check: AnswerCheck): Promise<NestedRatios> {
  const { settings: { clientLevels, seconds, warmup, maxRequestsPerRun }, pgTarget, workDir } = run;
  noteLoad(run.factors, "nested ratios");
  const nestedRatios: NestedRatios = { inDatabase: new Map(), overHttp: new Map() };
  const nestedBench = check.queries.find((q) => q.name === "nested");
  const sqlReady = check.readyOn("sql", nestedBench);
  const resolveNested = check.readyOn("resolve", nestedBench);
  const timedBounds: Bounds = { seconds, maxRequests: maxRequestsPerRun, warmupSeconds: warmup };
  if (sqlReady && resolveNested && nestedBench) {
    const graphql = nestedBench.graphql("pg_graphql", resolveNested.prepared!);
    const answer = answerScripts(await resolveText(run.user, graphql));
    const scripts: InDatabaseScripts = {
      floor: sqlScript(nestedBench.sql),
      floorJsonb: sqlScript(`select (floor.result)::jsonb as result from (${nestedBench.sql}) as floor`),
      resolve: resolveScript(graphql),
      resolveText: resolveScript(graphql, undefined, undefined, "graphql._resolve_text"),
      answerText: answer.text,
      answerJsonb: answer.jsonb,
    };
    for (const clients of clientLevels) {
      const ratios = measureInDatabase(pgTarget, scripts, clients, timedBounds, workDir, postmasterPid(run.cluster));
      nestedRatios.inDatabase.set(clients, ratios);
      log(
        `nested in the database @${clients}: resolve ${spread(ratios.resolveVsBound)} of the bound, _resolve_text ${spread(ratios.resolveTextVsFloor)} of the floor` +
          (ratios.cpu ? `; on backend CPU ${spread(ratios.cpu.resolveVsBound)} and ${spread(ratios.cpu.resolveTextVsFloor)}` : ""),
      );
    }
  }
  const oursNested = check.readyOn("ours", nestedBench);
  const floorNested = check.readyOn("httpFloor", nestedBench);
  if (oursNested && floorNested && nestedBench) {
    const http = (r: ReadyEngine) => {
      const e = r.engine as HttpEngine;
      return { url: e.url, headers: e.headers, body: requestBody(e, nestedBench, r.prepared) };
    };
    for (const clients of clientLevels) {
      const ratio = measureOverHttp(http(oursNested), http(floorNested), clients, timedBounds, workDir);
      nestedRatios.overHttp.set(clients, ratio);
      log(`nested over HTTP @${clients}: ${spread(ratio)} of the HTTP floor's req/s`);
    }
  }
  return nestedRatios;
}

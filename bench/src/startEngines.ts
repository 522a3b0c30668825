// Bench stage: the engines of the run. Input: the run (what is installed, BENCH_ENGINES). Output:
// the engines under test, the HTTP ones started on loopback ports and kept for teardown; an
// engine that cannot start is left out with a note, so its targets read "not measured".
import type { BenchRun } from "./benchRun";
import { log } from "./benchRun";
import {
  engineLabels, oursServerAvailable, startHttpFloor, startOurs, startPostgraphile,
  type Engine, type EngineId, type HttpEngine, type PgbenchEngine,
} from "./engines";
import { benchClaims } from "./indb";
import { engineWanted } from "./settings";

export async function startEngines(run: BenchRun): Promise<Engine[]> {
  const { authUrl, extensionReady, notes } = run;
  const wanted = (id: EngineId) => engineWanted(run.settings, id);
  const engines: Engine[] = [];
  const pgbenchEngine = (id: EngineId, dialect: PgbenchEngine["dialect"]): PgbenchEngine => ({ kind: "pgbench", id, label: engineLabels[id], dialect });
  if (wanted("sql")) engines.push(pgbenchEngine("sql", "floor"));
  if (wanted("resolve") && extensionReady) engines.push(pgbenchEngine("resolve", "pg_graphql"));
  const tryStart = async (id: EngineId, start: () => Promise<HttpEngine>) => {
    if (!wanted(id)) return;
    try {
      log(`starting ${engineLabels[id]}`);
      const e = await start();
      run.httpEngines.push(e);
      engines.push(e);
    } catch (err) {
      notes.push(`${engineLabels[id]} not measured: it did not start (${(err as Error).message.split("\n")[0]}).`);
      log(`${engineLabels[id]} did not start: ${(err as Error).message}`);
    }
  };
  await tryStart("httpFloor", () => startHttpFloor(authUrl, 5480, benchClaims));
  if (extensionReady && oursServerAvailable()) await tryStart("ours", () => startOurs(authUrl, 5481));
  else if (wanted("ours")) notes.push(`${engineLabels.ours} not measured: ${extensionReady ? "server/dist is not built" : "the extension is not installed"}.`);
  await tryStart("postgraphile4", () => startPostgraphile(4, authUrl, 5482));
  await tryStart("postgraphile5", () => startPostgraphile(5, authUrl, 5483));
  return engines;
}

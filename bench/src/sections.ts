// Bench stage: the sections after the query matrix. Input: the run (and, for cold start and
// memory, the answer check). Output: each section's figures, or undefined where the knobs,
// the extension or the server leave it out; its wrong answers counted and noted. The measuring
// itself is in each section's module (coldStart.ts, bigTables.ts, largeCatalog.ts, features.ts,
// requestLogging.ts, platform.ts).
import type { AnswerCheck } from "./answerCheck";
import { statsSchema } from "./backendStats";
import type { BenchRun } from "./benchRun";
import { log } from "./benchRun";
import { postmasterPid } from "./processCpu";
import { measureBigTables, type BigTableFigures } from "./bigTables";
import { connectionUrl } from "./cluster";
import { measureColdStart, measureMemory } from "./coldStart";
import { oursServerAvailable } from "./engines";
import { measureFeatures, type FeatureFigures } from "./features";
import { measureLargeCatalog, type LargeCatalogFigures } from "./largeCatalog";
import { noteLoad } from "./machineFactors";
import { measurePlatform, platformSettings, type PlatformFigures } from "./platform";
import type { ColdStart, MemoryFigures } from "./report";
import { measureRequestLogging, type RequestLoggingFigures } from "./requestLogging";
import { engineWanted, queryWanted } from "./settings";

/** Cold start, and memory per backend of graphql.resolve and of the SQL (the SQL's alone when
 * graphql.resolve did not answer the nested query right). */
export async function coldStartSection(run: BenchRun, check: AnswerCheck): Promise<{ coldStart: ColdStart | undefined; memory: MemoryFigures[] }> {
  const { authUrl } = run;
  let coldStart: ColdStart | undefined;
  const memory: MemoryFigures[] = [];
  const resolveReady = check.readyOn("resolve", check.queries.find((q) => q.name === "nested"));
  if (resolveReady) {
    log("measuring cold start and memory");
    noteLoad(run.factors, "cold start");
    coldStart = await measureColdStart(authUrl, connectionUrl(run.cluster, "bench"), run.admin, resolveReady.prepared!);
    const reads = check.queries.filter((q) => q.kind === "read" && check.passed(resolveReady, q));
    memory.push(await measureMemory(`graphql.resolve (${reads.map((q) => q.name).join(", ")} in turn)`, authUrl, resolveReady.prepared!, "resolve", reads));
    memory.push(await measureMemory("hand-written SQL (same queries)", authUrl, undefined, "sql", reads));
  } else {
    const reads = check.queries.filter((q) => q.kind === "read");
    if (reads.length > 0) memory.push(await measureMemory("hand-written SQL (read queries in turn)", authUrl, undefined, "sql", reads));
  }
  return { coldStart, memory };
}

export async function bigTablesSection(run: BenchRun): Promise<BigTableFigures | undefined> {
  const { settings, cluster } = run;
  if (!run.extensionReady || !engineWanted(settings, "resolve") || !queryWanted(settings, "bigtables")) return undefined;
  noteLoad(run.factors, "big tables");
  const bigTables = await measureBigTables({
    url: (database) => connectionUrl(cluster, database), pgTarget: run.pgTarget, sizes: settings.bigRows, seconds: settings.seconds,
    runs: settings.runs, workDir: run.workDir, statsSchema, admin: run.admin, log,
  });
  if (bigTables.wrong.length > 0) {
    run.mismatches++;
    for (const w of bigTables.wrong) log(`MISMATCH big tables: ${w}`);
    run.notes.push(`Big tables: wrong answers (${bigTables.wrong.map((w) => w.split(":")[0]).join(", ")}); not timed there.`);
  }
  return bigTables;
}

export async function largeCatalogSection(run: BenchRun): Promise<LargeCatalogFigures | undefined> {
  const { settings, cluster } = run;
  if (!run.extensionReady || !engineWanted(settings, "resolve") || !queryWanted(settings, "catalog")) return undefined;
  noteLoad(run.factors, "large catalog");
  const largeCatalog = await measureLargeCatalog({
    url: (database) => connectionUrl(cluster, database),
    authUrl: (database) => connectionUrl(cluster, database, "authenticator"),
    admin: run.admin, tables: settings.catalogTables, log,
  });
  if (largeCatalog.wrong.length > 0) {
    run.mismatches++;
    for (const w of largeCatalog.wrong) log(`MISMATCH large catalog: ${w}`);
    run.notes.push(`Large catalog: ${largeCatalog.wrong.length} wrong answer(s).`);
  }
  return largeCatalog;
}

export async function featuresSection(run: BenchRun): Promise<FeatureFigures | undefined> {
  const { settings } = run;
  if (!run.extensionReady || !oursServerAvailable() || !queryWanted(settings, "features")) return undefined;
  noteLoad(run.factors, "opt-in features");
  const features = await measureFeatures({
    admin: run.admin, user: run.user, authUrl: run.authUrl, pgTarget: run.pgTarget, scale: settings.scale, clients: settings.clientLevels,
    runs: settings.runs, seconds: settings.seconds, warmup: settings.warmup, workDir: run.workDir, postmaster: postmasterPid(run.cluster), log,
  });
  if (features.wrong.length > 0) {
    run.mismatches++;
    run.notes.push(`Opt-in features: ${features.wrong.length} wrong answer(s); not timed there.`);
  }
  return features;
}

export async function requestLoggingSection(run: BenchRun): Promise<RequestLoggingFigures | undefined> {
  const { settings, cluster } = run;
  if (!run.extensionReady || !engineWanted(settings, "ours") || !queryWanted(settings, "logging")) return undefined;
  // The dirty pages of the sections before are written now, not by a checkpoint during the runs.
  await run.admin.query("checkpoint");
  noteLoad(run.factors, "request logs");
  const requestLogging = await measureRequestLogging({
    adminUrl: (database) => connectionUrl(cluster, database), clients: settings.clientLevels, runs: settings.runs,
    seconds: settings.seconds, workDir: run.workDir, log,
  });
  if (requestLogging.recorded < requestLogging.answered) {
    run.mismatches++;
    log(`MISMATCH request logs: ${requestLogging.answered} requests answered, ${requestLogging.recorded} recorded`);
    run.notes.push("Request logs: fewer requests recorded than answered.");
  }
  return requestLogging;
}

/** A failed platform section is noted, and does not stop the run. */
export async function platformSection(run: BenchRun): Promise<PlatformFigures | undefined> {
  const { settings } = run;
  if (!run.extensionReady || !engineWanted(settings, "ours") || !queryWanted(settings, "platform")) return undefined;
  noteLoad(run.factors, "platform");
  try {
    return await measurePlatform({ ...platformSettings(), seconds: Math.max(settings.seconds, 3), workDir: run.workDir, log });
  } catch (e) {
    log(`platform section failed: ${(e as Error).stack ?? String(e)}`);
    run.notes.push(`Platform: the section failed (${(e as Error).message.split("\n")[0]}).`);
    return undefined;
  }
}

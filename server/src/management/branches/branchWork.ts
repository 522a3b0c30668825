// Branches stage: the work behind branch operations, each reported as an action run with its
// logs — replaying the parent's migrations on a new branch or pushing those it lacks, merging the
// branch's new migrations into the parent, resetting a branch to the parent's migrations — and
// the schema difference.
import { randomBytes } from "node:crypto";
import { createClient } from "@pgkit/client";
import { run as migra } from "@pgkit/migra";
import { withConnection } from "../platform/sql";
import { createDatabaseDdl, dropDatabaseDdl, prepareDatabaseDdl, projectNames } from "../provision/projectDdl";
import type { Services } from "../services";
import type { ActionRun, BranchRecord, RunStep } from "../store/branchStore";
import type { ProjectRecord } from "../store/projectStore";
import { applyMigrations, migrationsOf, type Migration } from "./branchMigrations";

function onDatabase<T>(services: Services, project: ProjectRecord, work: Parameters<typeof withConnection<T>>[1]): Promise<T> {
  return withConnection(services.servers.adminUrlFor(project.server, project.database_name), work);
}

/** Runs `work` as one action run of the branch: RUNNING, then EXITED with its log or DEAD with the
 * failure; the log's lines also go to the branch's workflow_run_logs. */
export async function reportedRun(services: Services, branch: BranchRecord, step: RunStep, work: (log: string[]) => Promise<void>): Promise<ActionRun> {
  const run = await services.branches.startRun(branch.id, step);
  const log: string[] = [];
  let status: "EXITED" | "DEAD";
  try {
    await work(log);
    log.push("done");
    status = "EXITED";
  } catch (e) {
    if (!log.some((line) => line.startsWith("failed: "))) log.push(`failed: ${(e as Error).message}`);
    status = "DEAD";
  }
  await services.branches.finishRun(run.id, status, log.join("\n"));
  await services.logs.recordRun(branch.branch_ref, { id: run.id, step, status }, log);
  return { ...run, status };
}

/** Migrations of `from` whose versions `to` does not have, in version order, up to `upTo` when given. */
async function missingMigrations(services: Services, from: ProjectRecord, to: ProjectRecord, upTo: string | undefined): Promise<Migration[]> {
  const source = await onDatabase(services, from, migrationsOf);
  const present = new Set((await onDatabase(services, to, migrationsOf)).map((m) => m.version));
  return source.filter((m) => !present.has(m.version) && (upTo === undefined || m.version <= upTo));
}

/** Why a `migration_version` cannot be used (`source`'s history lacks it); undefined when it can. */
export async function unknownVersion(services: Services, source: ProjectRecord, version: string | undefined): Promise<string | undefined> {
  if (version === undefined) return undefined;
  const versions = (await onDatabase(services, source, migrationsOf)).map((m) => m.version);
  if (versions.includes(version)) return undefined;
  return `Migration version ${version} is not in the migration history of ${source.ref}${versions.length > 0 ? ` (it has ${versions.join(", ")})` : " (it has none)"}`;
}

export async function replayMigrations(services: Services, from: ProjectRecord, to: ProjectRecord, log: string[], upTo?: string): Promise<void> {
  const missing = await missingMigrations(services, from, to, upTo);
  if (missing.length === 0) {
    log.push(`no migrations to apply on ${to.ref}${upTo === undefined ? "" : ` up to ${upTo}`}`);
    return;
  }
  await onDatabase(services, to, (sql) => applyMigrations(sql, to.owner_role, missing, log));
  // The data API reads the schema afresh on its next connection.
  await services.pools.changed(to.ref);
}

/** The branch's database made again empty from the template, then the parent's migrations. */
export async function resetBranchDatabase(services: Services, parent: ProjectRecord, branchProject: ProjectRecord, log: string[], upTo?: string): Promise<void> {
  const names = projectNames(branchProject.ref);
  await services.pools.changed(branchProject.ref);
  await withConnection(services.servers.get(branchProject.server).adminUrl, async (sql) => {
    await sql.rows(dropDatabaseDdl(names));
    await sql.rows(createDatabaseDdl(names, services.servers.templateDatabase));
  });
  await onDatabase(services, branchProject, (sql) => sql.rows(prepareDatabaseDdl(names)));
  await services.logins.remake(branchProject);
  log.push(`database ${names.database} made again from the template`);
  await replayMigrations(services, parent, branchProject, log, upTo);
}

/** The SQL that makes `schemas` of the parent's database like the branch's (`@pgkit/migra`,
 * destructive statements included). */
export async function schemaDiff(services: Services, parent: ProjectRecord, branch: ProjectRecord, schemas: string[]): Promise<string> {
  const from = createClient(services.servers.adminUrlFor(parent.server, parent.database_name));
  const to = createClient(services.servers.adminUrlFor(branch.server, branch.database_name));
  try {
    let sql = "";
    for (const schema of schemas) sql += (await migra(from, to, { unsafe: true, schema })).sql;
    return sql;
  } finally {
    await Promise.all([from.end(), to.end()]);
  }
}

export function newBranchPassword(): string {
  return randomBytes(18).toString("base64url");
}

// Branches stage: the work behind branch operations, each reported as an action run with its
// logs — replaying the parent's migrations on a new branch or pushing those it lacks, merging the
// branch's new migrations into the parent, resetting a branch to the parent's migrations — and
// the schema difference. Histories are read on the projects' read-only logins, migrations run on
// the target's owner login, and the diff reads both catalogs on read-only logins.
import { randomBytes } from "node:crypto";
import { createClient } from "@pgkit/client";
import { run as migra } from "@pgkit/migra";
import { templateDatabase } from "../door/projectTemplate";
import type { ProjectAccess } from "../tenants/projectLogins";
import type { ProjectSession } from "../tenants/projectSession";
import { projectNames } from "../tenants/projectNames";
import { ownerDefaultPrivileges } from "../tenants/ownerDefaultPrivileges";
import type { Services } from "../services";
import type { ActionRun, BranchRecord, RunStep } from "./branchStore";
import type { ProjectRecord } from "../tenants/projectStore";
import { applyMigrations, migrationsOf, type Migration } from "./branchMigrations";

function onProject<T>(services: Services, project: ProjectRecord, access: ProjectAccess, work: (session: ProjectSession) => Promise<T>): Promise<T> {
  return services.logins.run(project, access, services.workTimeoutMs, work);
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
  const source = await onProject(services, from, "read_only", migrationsOf);
  const present = new Set((await onProject(services, to, "read_only", migrationsOf)).map((m) => m.version));
  return source.filter((m) => !present.has(m.version) && (upTo === undefined || m.version <= upTo));
}

/** Why a `migration_version` cannot be used (`source`'s history lacks it); undefined when it can. */
export async function unknownVersion(services: Services, source: ProjectRecord, version: string | undefined): Promise<string | undefined> {
  if (version === undefined) return undefined;
  const versions = (await onProject(services, source, "read_only", migrationsOf)).map((m) => m.version);
  if (versions.includes(version)) return undefined;
  return `Migration version ${version} is not in the migration history of ${source.ref}${versions.length > 0 ? ` (it has ${versions.join(", ")})` : " (it has none)"}`;
}

export async function replayMigrations(services: Services, from: ProjectRecord, to: ProjectRecord, log: string[], upTo?: string): Promise<void> {
  const missing = await missingMigrations(services, from, to, upTo);
  if (missing.length === 0) {
    log.push(`no migrations to apply on ${to.ref}${upTo === undefined ? "" : ` up to ${upTo}`}`);
    return;
  }
  await onProject(services, to, "owner", (session) => applyMigrations(session, missing, log));
  // The data API reads the schema afresh on its next connection.
  await services.pools.changed(to.ref);
}

/** The branch's database made again empty from the template, then the parent's migrations. */
export async function resetBranchDatabase(services: Services, parent: ProjectRecord, branchProject: ProjectRecord, log: string[], upTo?: string): Promise<void> {
  const names = projectNames(branchProject.ref);
  await services.pools.changed(branchProject.ref);
  const server = services.door.server(branchProject.server);
  await server.databases.drop(names.database);
  await server.databases.create(names.database, names.owner, templateDatabase, services.limits.database);
  await server.databases.grantAccess(names.database, { owner: names.owner, connect: [names.authenticator, names.ownerLogin, names.readOnly] });
  await server.inside.grantPlatformUsage(names.database, names.owner);
  await onProject(services, branchProject, "owner", (session) => session.run(ownerDefaultPrivileges(names.owner)));
  log.push(`database ${names.database} made again from the template`);
  await replayMigrations(services, parent, branchProject, log, upTo);
}

/** The SQL that makes `schemas` of the parent's database like the branch's (`@pgkit/migra`,
 * destructive statements included), read on both projects' read-only logins. */
export async function schemaDiff(services: Services, parent: ProjectRecord, branch: ProjectRecord, schemas: string[]): Promise<string> {
  const client = async (project: ProjectRecord) => {
    const login = await services.logins.login(project, "read_only", services.workTimeoutMs);
    return createClient(`${login.url}${login.url.includes("?") ? "&" : "?"}options=${encodeURIComponent(login.options)}`);
  };
  const from = await client(parent);
  const to = await client(branch);
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

// Branches stage: a parent project and its new branch's empty roles → the branch's database as a
// copy of the parent's with its data: a copy of the database when no session holds the parent
// (CREATE DATABASE ... TEMPLATE), else a dump on the parent's read-only login restored on the
// branch's owner login into a copy of the project template; then handed to the branch's owner.
import type { ServerDoor } from "../door/superuserDoor";
import { dumpAs } from "../project/logicalDump";
import type { ProjectLogins } from "../project/projectLogins";
import { restoreIntoTemplateCopy } from "../project/projectRestore";
import type { ProjectServers } from "../provision/projectServers";
import { sqlState } from "../platform/sql";
import type { ProjectRecord } from "../store/projectStore";
import { defaultAclRows, handOverToBranchOwner } from "./ownerHandover";

export interface BranchCopyDeps {
  door: ServerDoor;
  servers: ProjectServers;
  logins: ProjectLogins;
  timeoutMs: number;
  log: (line: string) => void;
}

/** The parent's database copied as the branch's; false when other sessions hold the parent. */
export async function copyDatabase(door: ServerDoor, parent: ProjectRecord, branch: ProjectRecord, connectionLimit: number): Promise<boolean> {
  try {
    await door.databases.create(branch.database_name, branch.owner_role, parent.database_name, connectionLimit);
    return true;
  } catch (e) {
    if (sqlState(e) === "55006") return false;
    throw e;
  }
}

/** Fills the branch's database (a copy of the template) from a dump of the parent's. */
export async function copyByDump(deps: BranchCopyDeps, parent: ProjectRecord, branch: ProjectRecord): Promise<void> {
  const dump = await dumpAs(await deps.logins.login(parent, "read_only", deps.timeoutMs));
  await restoreIntoTemplateCopy(deps.door, deps.logins, branch, dump, { database: branch.database_name, privileges: true, timeoutMs: deps.timeoutMs });
  deps.log(`copied ${parent.ref}'s database by dump and restore: the parent was in use`);
}

/** What the parent's owner owned and was granted in the branch's copy becomes the branch owner's. */
export async function handOver(deps: BranchCopyDeps, parent: ProjectRecord, branch: ProjectRecord): Promise<void> {
  const parentDefaults = await deps.logins.run(parent, "read_only", deps.timeoutMs, (session) =>
    defaultAclRows((text, values) => session.run(text, values), parent.owner_role),
  );
  await handOverToBranchOwner(deps.door, deps.servers, parent, branch, parentDefaults);
}

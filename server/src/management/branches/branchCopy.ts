// Branches stage: a parent project and its new branch's empty roles → the branch's database as a
// copy of the parent's with its data: a copy of the database (CREATE DATABASE ... TEMPLATE) when
// the parent can be had without sessions for a moment, else a dump on the parent's read-only
// login restored on the branch's owner login into a copy of the project template; then handed to
// the branch's owner.
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerDoor } from "../door/superuserDoor";
import { dumpAs } from "../backups/logicalDump";
import type { ProjectLogins } from "../tenants/projectLogins";
import { restoreIntoTemplateCopy } from "../backups/projectRestore";
import type { ProjectServers } from "../servers/projectServers";
import { sqlState } from "../platform/sql";
import type { ProjectRecord } from "../tenants/projectStore";
import { defaultAclRows, handOverToBranchOwner } from "./ownerHandover";

export interface BranchCopyDeps {
  door: ServerDoor;
  servers: ProjectServers;
  logins: ProjectLogins;
  timeoutMs: number;
  log: (line: string) => void;
}

export interface TemplateCopyDeps {
  door: ServerDoor;
  /** Closes the platform's pools to the project and holds its new sessions (see ProjectHolds). */
  hold: (ref: string, ms: number) => Promise<() => Promise<void>>;
  log: (line: string) => void;
}

/** The longest the parent's new data API requests and routed sessions wait for the copy. */
const holdMs = 15_000;
/** The longest the copy waits for the parent's running statements and transactions to end. */
const quietWaitMs = 2_000;

/**
 * The parent's database copied as the branch's; false when it could not be had without sessions
 * (the caller then copies by dump). PostgreSQL copies a database only while no session is
 * connected to it, and otherwise waits 5 s before failing; so the copy is made quiet first: the
 * platform's pools to the parent close and its new sessions wait (here and in every process that
 * serves it), the database refuses new connections, idle sessions are ended, and running ones are
 * given `quietWaitMs` to finish. The parent opens again whatever happens.
 */
export async function copyDatabase(deps: TemplateCopyDeps, parent: ProjectRecord, branch: ProjectRecord, connectionLimit: number): Promise<boolean> {
  const databases = deps.door.databases;
  const resume = await deps.hold(parent.ref, holdMs);
  try {
    await databases.setAllowConnections(parent.database_name, false);
    try {
      const left = await quiet(deps.door, parent.database_name);
      if (left > 0) {
        deps.log(`${parent.ref}'s database kept ${left} busy session(s) for ${quietWaitMs} ms`);
        return false;
      }
      await databases.create(branch.database_name, branch.owner_role, parent.database_name, connectionLimit);
      return true;
    } catch (e) {
      if (sqlState(e) === "55006") return false;
      throw e;
    } finally {
      await databases.setAllowConnections(parent.database_name, true);
    }
  } finally {
    await resume();
  }
}

/** Ends the database's idle sessions until none is left or the wait is over; the sessions left. */
async function quiet(door: ServerDoor, database: string): Promise<number> {
  const deadline = Date.now() + quietWaitMs;
  for (;;) {
    const left = await door.databases.endIdleSessions(database);
    if (left === 0 || Date.now() >= deadline) return left;
    await sleep(50);
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

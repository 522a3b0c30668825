// Test support (hostile tenant): what an operation left behind → the problems it shows. The traps
// that ran (from the server log: where, as whom), roles that gained an attribute or a dangerous
// membership, pg_hba.conf rules not derived from what the API was given, and programs a trap ran
// as the server's OS user. Roles and marks are put back afterwards, so each operation is judged
// on its own.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import format from "pg-format";
import { expect } from "vitest";
import type { ClusterInfo } from "../harness/cluster";
import { newRoleMayHave } from "./guesses";
import { markPrefix } from "./hostileTraps";
import { doorApplicationName } from "../../server/src/management/door/pinnedSession";

export interface TrapRun {
  tag: string;
  currentUser: string;
  sessionUser: string;
  superuser: boolean;
  sessionSuperuser: boolean;
  readOnly: string;
  database: string;
}

/** Where the server log ends now: the lines an operation adds come after it. */
export function logOffset(cluster: ClusterInfo): number {
  return existsSync(cluster.logFile) ? statSync(cluster.logFile).size : 0;
}

function logSince(cluster: ClusterInfo, offset: number): string {
  if (!existsSync(cluster.logFile)) return "";
  return readFileSync(cluster.logFile).subarray(offset).toString("utf8");
}

const field = (line: string, name: string) => new RegExp(`${name}=\\[([^\\]]*)\\]`).exec(line)?.[1] ?? "";

export function trapRuns(cluster: ClusterInfo, offset: number): TrapRun[] {
  return logSince(cluster, offset)
    .split("\n")
    .filter((line) => line.includes("hostile-trap tag="))
    .map((line) => ({
      tag: field(line, "tag"),
      currentUser: field(line, "current_user"),
      sessionUser: field(line, "session_user"),
      superuser: field(line, "superuser") === "t",
      sessionSuperuser: field(line, "session_superuser") === "t",
      readOnly: field(line, "read_only"),
      database: field(line, "database"),
    }));
}

/** What a trap managed to do with superuser rights (`hostile-escalated` lines). */
/** The application_name of the suite's own superuser sessions (checks and set-up). */
export const testAdminName = "hostile_world_admin";

/** Superuser logins into databases other than the maintenance one that are not door sessions
 * (the platform's only way to superuser rights) nor the suite's own. Needs log_connections. */
export function superuserLogins(cluster: ClusterInfo, offset: number, superusers: Set<string>): string[] {
  const pattern = /connection authorized: user=(\S+) database=(\S+)(?: application_name=(\S*))?/;
  return logSince(cluster, offset)
    .split("\n")
    .map((line) => pattern.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && superusers.has(m[1]!) && m[2] !== "postgres")
    .filter((m) => m[3] !== doorApplicationName && m[3] !== testAdminName)
    .map((m) => `${m[1]} logged in to ${m[2]} as "${m[3] ?? ""}"`);
}

export function escalations(cluster: ClusterInfo, offset: number): string[] {
  return logSince(cluster, offset)
    .split("\n")
    .filter((line) => line.includes("hostile-escalated tag="))
    .map((line) => `trap "${field(line, "tag")}" did ${field(line, "did")}`);
}

export function describeRun(run: TrapRun): string {
  const login = run.sessionUser === run.currentUser ? "" : ` (logged in as ${run.sessionUser}${run.sessionSuperuser ? ", a superuser" : ""})`;
  return `"${run.tag}" in ${run.database} as ${run.currentUser}${run.superuser ? " (a superuser)" : ""}${login}`;
}

type Sql = <R = any>(text: string, params?: unknown[]) => Promise<R[]>;

const attributes = ["rolsuper", "rolcreaterole", "rolcreatedb", "rolreplication", "rolbypassrls"] as const;
type Attribute = (typeof attributes)[number];
const attributeWord: Record<Attribute, string> = {
  rolsuper: "superuser",
  rolcreaterole: "createrole",
  rolcreatedb: "createdb",
  rolreplication: "replication",
  rolbypassrls: "bypassrls",
};

/** Memberships that are superuser rights by another name. */
export const dangerousGroups = ["pg_execute_server_program", "pg_read_server_files", "pg_write_server_files"];

export interface RoleSnapshot {
  roles: Map<string, Record<Attribute, boolean>>;
  /** `group member` pairs in the dangerous groups. */
  memberships: Set<string>;
}

export async function roleSnapshot(sql: Sql): Promise<RoleSnapshot> {
  const rows = await sql<Record<Attribute, boolean> & { rolname: string }>(`select rolname, ${attributes.join(", ")} from pg_catalog.pg_roles`);
  const members = await sql<{ pair: string }>(
    `select g.rolname || ' ' || m.rolname as pair from pg_catalog.pg_auth_members a
       join pg_catalog.pg_roles g on g.oid = a.roleid join pg_catalog.pg_roles m on m.oid = a.member
      where g.rolname = any($1)`,
    [dangerousGroups],
  );
  return {
    roles: new Map(rows.map(({ rolname, ...attrs }) => [rolname, attrs as Record<Attribute, boolean>])),
    memberships: new Set(members.map((m) => m.pair)),
  };
}

/** Attributes and dangerous memberships a role has now and did not have before. */
export function roleGains(before: RoleSnapshot, after: RoleSnapshot): string[] {
  const gains: string[] = [];
  for (const [role, attrs] of after.roles) {
    const was = before.roles.get(role);
    for (const a of attributes) {
      if (!attrs[a]) continue;
      if (was ? !was[a] : !newRoleMayHave(role, attributeWord[a])) gains.push(`role ${role} ${was ? "gained" : "was made with"} ${attributeWord[a]}`);
    }
  }
  for (const pair of after.memberships) if (!before.memberships.has(pair)) gains.push(`role ${pair.split(" ")[1]} was granted ${pair.split(" ")[0]}`);
  return gains;
}

/** Takes back what roles gained, so the next operation starts from the same rights. */
export async function restoreRoles(sql: Sql, before: RoleSnapshot, after: RoleSnapshot): Promise<void> {
  for (const [role, attrs] of after.roles) {
    const was = before.roles.get(role);
    if (!was) continue;
    for (const a of attributes) if (attrs[a] && !was[a]) await sql(format(`alter role %I no${attributeWord[a]}`, role));
  }
  for (const pair of after.memberships) {
    if (before.memberships.has(pair)) continue;
    const [group, member] = pair.split(" ");
    await sql(format("revoke %I from %I", group, member));
  }
}

/** Marks left by `COPY ... TO PROGRAM` run by a trap (then removed). */
export function takeMarks(cluster: ClusterInfo): string[] {
  const marks = readdirSync(cluster.host).filter((f) => f.startsWith(markPrefix));
  for (const m of marks) rmSync(join(cluster.host, m), { force: true });
  return marks.map((m) => m.slice(markPrefix.length));
}

export function hbaText(cluster: ClusterInfo): string {
  return readFileSync(join(cluster.dataDir, "pg_hba.conf"), "utf8");
}

/** Rules of pg_hba.conf that are neither in `baseline` nor derived from the API's input: a rule
 * for `database` only, refusing (reject, or hostnossl), or allowing by password one of `given`. */
export function underivedHbaRules(text: string, baseline: string, database: string, given: Set<string>): string[] {
  const known = new Set(baseline.split("\n").map((l) => l.trim()));
  const db = new Set([database, `"${database}"`]);
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#") && !known.has(l))
    .filter((line) => {
      const [type, dbName, user, address, method, ...rest] = line.split(/\s+/);
      if (!["host", "hostssl", "hostnossl"].includes(type!) || !db.has(dbName!) || user !== "all" || rest.length > 0) return true;
      if (method === "reject") return false;
      return !(method === "scram-sha-256" && given.has(address!));
    });
}

export interface Watch {
  cluster: ClusterInfo;
  admin: Sql;
  /** pg_hba.conf as it was before any operation. */
  hbaBaseline: string;
  /** The project database whose managed rules the API may write. */
  database: string;
  /** CIDRs the API was given so far (their rules may be in pg_hba.conf). */
  givenCidrs: Set<string>;
  /** The roles before any operation. */
  baselineRoles: RoleSnapshot;
}

/**
 * Runs one platform operation and fails, listing every problem at once, when a trap ran with
 * superuser rights (or behind SET ROLE from a superuser login), a role gained rights, pg_hba.conf
 * has a rule not derived from the API's input, a trap ran a program, or `work` (the operation and
 * the check of its effect) failed. The message lists every trap that ran, where and as whom.
 */
export async function watched(watch: Watch, what: string, work: () => Promise<void>): Promise<void> {
  // A trap's program can outlive the statement that started it (a statement timeout ends the
  // statement, not the program): what it did after an earlier operation answered is taken back
  // here and reported with this one.
  const leftover = await roleSnapshot(watch.admin);
  const late = roleGains(watch.baselineRoles, leftover).filter((g) => !g.includes(" was made with "));
  await restoreRoles(watch.admin, watch.baselineRoles, leftover);
  const offset = logOffset(watch.cluster);
  const lateMarks = takeMarks(watch.cluster);
  const before = await roleSnapshot(watch.admin);
  let failure: unknown;
  try {
    await work();
  } catch (e) {
    failure = e;
  }
  const runs = trapRuns(watch.cluster, offset);
  const after = await roleSnapshot(watch.admin);
  await restoreRoles(watch.admin, before, after);
  const unique = (lines: string[]) => [...new Set(lines)];
  const done = unique(escalations(watch.cluster, offset).map((e) => e.replace(/^trap "[^"]*" did /, "")));
  const marks = takeMarks(watch.cluster);
  const superusers = new Set((await watch.admin<{ rolname: string }>("select rolname from pg_roles where rolsuper")).map((r) => r.rolname));
  const problems = [
    ...unique(superuserLogins(watch.cluster, offset, superusers)).map((l) => `during ${what}, ${l}: not a door session`),
    ...late.map((g) => `before ${what}, ${g} (by a trap of an earlier operation that finished late)`),
    ...(lateMarks.length > 0 ? [`before ${what}, traps of an earlier operation ran a program (${lateMarks.length} marks)`] : []),
    ...unique(runs.filter((r) => r.superuser || r.sessionSuperuser).map((r) => `${what} ran trap ${describeRun(r)}`)),
    ...(done.length > 0 ? [`with those rights the traps did: ${done.join("; ")}`] : []),
    ...roleGains(before, after).map((g) => `after ${what}, ${g}`),
    ...(marks.length > 0 ? [`after ${what}, traps ran a program as the server's OS user (${marks.length} marks)`] : []),
    ...underivedHbaRules(hbaText(watch.cluster), watch.hbaBaseline, watch.database, watch.givenCidrs).map((l) => `after ${what}, pg_hba.conf has "${l}"`),
  ];
  if (failure !== undefined) problems.push(`${what} did not do its job: ${failure instanceof Error ? failure.message : String(failure)}`);
  const ran = runs.length === 0 ? "no trap ran" : `traps that ran: ${unique(runs.map(describeRun)).join("; ")}`;
  expect(problems, `${what} (${ran})`).toEqual([]);
}

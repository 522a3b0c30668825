// Test support for the language handler: databases with plv8 installed, PostgreSQL error
// capture, and backend process inspection.
import { readFileSync } from "node:fs";
import type pg from "pg";
import { clusterInfo, freshDatabase, type TestDatabase } from "../harness/db";

export async function plv8Database(): Promise<TestDatabase> {
  const db = await freshDatabase();
  await db.query("create extension plv8");
  return db;
}

/**
 * `churn(n)`: n short-lived objects (about 50 bytes each), so that a call of it with n in the
 * hundreds of thousands runs young collections.
 */
export const churnFunctionSql = `
  create function churn(n int) returns int as $$
    // Each object outlives its iteration a little, so that none is optimized away.
    const ring = new Array(64);
    for (let i = 0; i < n; i++) ring[i & 63] = { i, s: 'item ' + i };
    return ring.filter((o) => o !== undefined).length;
  $$ language plv8`;

/** The error a query fails with (pg's DatabaseError carries SQLSTATE and the other fields). */
export async function pgError(run: Promise<unknown>): Promise<pg.DatabaseError> {
  try {
    await run;
  } catch (e) {
    return e as pg.DatabaseError;
  }
  throw new Error("the query succeeded, an error was expected");
}

export async function backendPid(client: pg.Client): Promise<number> {
  const { rows } = await client.query("select pg_backend_pid() as pid");
  return rows[0].pid as number;
}

/**
 * Private memory of a process in kB: Private_Dirty of smaps_rollup. Private_Clean is left out
 * on purpose: it counts pages of shared libraries (libnode is ~40 MB) that no other process
 * happens to have touched at that moment, so it rises and falls with other backends.
 */
export function privateKb(pid: number): number {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const m = /^Private_Dirty:\s+(\d+) kB/m.exec(text);
  if (!m) throw new Error(`no Private_Dirty in /proc/${pid}/smaps_rollup`);
  return Number(m[1]);
}

/** Waits until `pid` is running a statement that contains `marker`. */
export async function waitUntilRunning(observer: pg.Client, pid: number, marker: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await observer.query(
      "select 1 from pg_stat_activity where pid = $1 and state = 'active' and position($2 in query) > 0",
      [pid, marker],
    );
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`backend ${pid} never started running ${marker}`);
}

/** Server log lines of backend `pid` that show it ending abnormally (FATAL or a signal). */
export function fatalLogLines(pid: number): string[] {
  const text = readFileSync(clusterInfo().logFile, "utf8");
  return text
    .split("\n")
    .filter((l) => (l.includes(`[${pid}]`) && /FATAL|PANIC/.test(l)) || l.includes(`(PID ${pid}) was terminated by signal`));
}

/** Creates a cluster-wide role unless it exists (roles outlive each test's database). */
export async function ensureRole(db: TestDatabase, role: string): Promise<void> {
  await db.query(`do $$ begin
    if not exists (select 1 from pg_roles where rolname = '${role}') then create role ${role}; end if;
  end $$`);
}

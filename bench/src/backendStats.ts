// Bench stage: per-backend figures. Input: the admin connection and a way to send requests.
// Output: statements per request (pg_stat_statements, track = all, so statements run inside
// functions count too), memory of a backend (/proc/PID/smaps_rollup) and cold-start times.
import { readFileSync } from "node:fs";
import type pg from "pg";

const apiRoles = ["authenticator", "anon", "authenticated", "service_role"];

// A schema of its own keeps the extension's view out of what the GraphQL engines reflect.
const statsSchema = "bench_stats";

export async function installStatementStats(admin: pg.Client): Promise<void> {
  await admin.query(`create schema if not exists ${statsSchema}`);
  await admin.query(`create extension if not exists pg_stat_statements schema ${statsSchema}`);
}

export async function statementsPerRequest(admin: pg.Client, database: string, requests: number, send: () => Promise<void>): Promise<number> {
  await admin.query(`select ${statsSchema}.pg_stat_statements_reset()`);
  for (let i = 0; i < requests; i++) await send();
  // The admin connection is a superuser outside the API roles, so its own bookkeeping is not counted.
  const { rows } = await admin.query<{ calls: string | null }>(
    `select sum(s.calls) as calls
       from ${statsSchema}.pg_stat_statements(true) s
       join pg_database d on d.oid = s.dbid
       join pg_roles r on r.oid = s.userid
      where d.datname = $1 and r.rolname = any($2)`,
    [database, apiRoles],
  );
  return Number(rows[0]?.calls ?? 0) / requests;
}

export interface Memory {
  rssMiB: number;
  pssMiB: number;
  privateMiB: number;
}

export function backendMemory(pid: number): Memory {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN);
  return {
    rssMiB: kb("Rss") / 1024,
    pssMiB: kb("Pss") / 1024,
    privateMiB: (kb("Private_Clean") + kb("Private_Dirty")) / 1024,
  };
}

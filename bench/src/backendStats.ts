// Bench stage: per-backend figures. Input: the admin connection and a way to send requests.
// Output: statements and database time per request (pg_stat_statements, track = all, so
// statements run inside functions count too) and memory of a backend (/proc/PID/smaps_rollup).
import { readFileSync } from "node:fs";
import type pg from "pg";

const apiRoles = ["authenticator", "anon", "authenticated", "service_role"];

// A schema of its own keeps the extension's view out of what the GraphQL engines reflect.
export const statsSchema = "bench_stats";

export async function installStatementStats(admin: pg.Client): Promise<void> {
  await admin.query(`create schema if not exists ${statsSchema}`);
  await admin.query(`create extension if not exists pg_stat_statements schema ${statsSchema}`);
}

export interface StatementFigures {
  /** Statements per request, nested ones included. */
  perRequest: number;
  /** Execution time of the top-level statements, per request: the database's share of a request. */
  dbMs: number;
  /** Of which statements nested inside functions (for graphql.resolve: the SQL it runs). */
  nestedMs: number;
}

const warmupRequests = 5;

export async function statementFigures(admin: pg.Client, database: string, requests: number, send: () => Promise<void>): Promise<StatementFigures> {
  // Steady state is what is measured: a pooled backend may be new (pools close idle ones) or
  // may not have run this query yet, and its one-time work would count against every request.
  for (let i = 0; i < warmupRequests; i++) await send();
  await admin.query(`select ${statsSchema}.pg_stat_statements_reset()`);
  for (let i = 0; i < requests; i++) await send();
  // The admin connection is a superuser outside the API roles, so its own bookkeeping is not counted.
  const { rows } = await admin.query<{ calls: string | null; top_ms: number | null; nested_ms: number | null }>(
    `select sum(s.calls) as calls,
            sum(s.total_exec_time) filter (where s.toplevel) as top_ms,
            sum(s.total_exec_time) filter (where not s.toplevel) as nested_ms
       from ${statsSchema}.pg_stat_statements(true) s
       join pg_database d on d.oid = s.dbid
       join pg_roles r on r.oid = s.userid
      where d.datname = $1 and r.rolname = any($2)`,
    [database, apiRoles],
  );
  const row = rows[0];
  return {
    perRequest: Number(row?.calls ?? 0) / requests,
    dbMs: Number(row?.top_ms ?? 0) / requests,
    nestedMs: Number(row?.nested_ms ?? 0) / requests,
  };
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

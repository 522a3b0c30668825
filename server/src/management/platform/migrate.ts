// Platform stage: the platform database URL → that database, created when missing, with every
// migration applied once (in one transaction, serialized across processes by an advisory lock).
import { databaseOf, withDatabase } from "./connectionUrl";
import { migrations, type Migration } from "./migrations/index";
import { sqlState, withConnection, type SqlPool } from "./sql";
import format from "pg-format";
import { setTimeout as sleep } from "node:timers/promises";

// Arbitrary constant naming the platform's migration lock.
const migrationLock = 7_301_001;

export async function ensurePlatformDatabase(url: string): Promise<void> {
  try {
    await withConnection(url, async () => {});
    return;
  } catch (e) {
    if (sqlState(e) !== "3D000") throw e;
  }
  const name = databaseOf(url);
  const made = await withConnection(withDatabase(url, "postgres"), async (sql) => {
    try {
      await sql.rows(format("create database %I", name));
      return true;
    } catch (e) {
      // Another process made it first (or is making it: the catalog's unique index refuses this one).
      if (sqlState(e) !== "42P04" && sqlState(e) !== "23505") throw e;
      return false;
    }
  });
  // Made by another process (workers starting together): usable once its create has committed.
  for (let tries = 0; !made; tries++) {
    try {
      await withConnection(url, async () => {});
      return;
    } catch (e) {
      if (sqlState(e) !== "3D000" || tries >= 300) throw e;
      await sleep(100);
    }
  }
}

/** Applies the pending migrations; returns the versions applied now. */
export async function migrate(pool: SqlPool, list: Migration[] = migrations): Promise<number[]> {
  return pool.transaction(async (tx) => {
    await tx.rows("select pg_advisory_xact_lock($1)", [migrationLock]);
    await tx.rows(`create table if not exists public.platform_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const done = new Set((await tx.rows<{ version: number }>("select version from public.platform_migrations")).map((r) => r.version));
    const applied: number[] = [];
    for (const m of list) {
      if (done.has(m.version)) continue;
      await tx.rows(m.sql);
      await tx.rows("insert into public.platform_migrations (version, name) values ($1, $2)", [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}

// Platform store: a project's key generation and legacy-key switch. Every change to who may call
// a project's data API bumps the generation in the same transaction; each server process reads
// it per data API request and rebuilds its verifier (and so its token cache) when it moved.
import type { Sql, SqlPool } from "../platform/sql";

export interface KeyState {
  generation: number;
  legacyApiKeysEnabled: boolean;
}

export async function readKeyState(sql: Sql, projectId: number): Promise<KeyState> {
  const row = await sql.one<{ generation: string; legacy: boolean }>(
    "select generation::text as generation, legacy_api_keys_enabled as legacy from platform.project_key_state where project_id = $1",
    [projectId],
  );
  return { generation: row ? Number(row.generation) : 0, legacyApiKeysEnabled: row?.legacy ?? true };
}

/** Marks the project's keys changed (call inside the transaction that changes them). */
export async function bumpKeyGeneration(sql: Sql, projectId: number): Promise<void> {
  await sql.rows(
    `insert into platform.project_key_state as s (project_id, generation) values ($1, 1)
     on conflict (project_id) do update set generation = s.generation + 1`,
    [projectId],
  );
}

export async function setLegacyApiKeysEnabled(sql: Sql, projectId: number, enabled: boolean): Promise<void> {
  await sql.rows(
    `insert into platform.project_key_state as s (project_id, generation, legacy_api_keys_enabled) values ($1, 1, $2)
     on conflict (project_id) do update set generation = s.generation + 1, legacy_api_keys_enabled = $2`,
    [projectId, enabled],
  );
}

// Arbitrary constant naming the per-project lock of auth changes (the project id is the other half).
const authChangeLock = 7_301_100;

/** Runs `work` in one transaction holding the project's auth-change lock, so checks made in it
 * (a name or domain free, a state move allowed) still hold when it commits. */
export function lockedForAuthChange<T>(platform: SqlPool, projectId: number, work: (tx: Sql) => Promise<T>): Promise<T> {
  return platform.transaction(async (tx) => {
    await tx.rows("select pg_advisory_xact_lock($1, $2::int)", [authChangeLock, projectId]);
    return work(tx);
  });
}

/** As lockedForAuthChange, and the project's key generation is bumped with the change. */
export function changingKeys<T>(platform: SqlPool, projectId: number, work: (tx: Sql) => Promise<T>): Promise<T> {
  return lockedForAuthChange(platform, projectId, async (tx) => {
    const result = await work(tx);
    await bumpKeyGeneration(tx, projectId);
    return result;
  });
}

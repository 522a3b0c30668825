// Project stage: a project session → its migration history in the table the supabase CLI keeps
// (`supabase_migrations.schema_migrations`: version, name, statements; plus rollback,
// created_by and idempotency_key as the hosted API records), so CLI-made and API-made
// migrations mix. Runs inside the caller's transaction.
import type { ProjectSession } from "../tenants/projectSession";

export interface MigrationRecord {
  version: string;
  name: string;
  statements: string[];
  rollback: string[];
  created_by: string | null;
  idempotency_key: string | null;
}

export interface NewMigration {
  name: string;
  statements: string[];
  rollback: string[];
  createdBy: string;
  idempotencyKey: string | undefined;
}

const table = "supabase_migrations.schema_migrations";
// Arbitrary constant naming the history lock (held to the end of the transaction).
const historyLock = 7_301_200;

const columns = `version, coalesce(name, '') as name, coalesce(statements, '{}') as statements,
  coalesce(rollback, '{}') as rollback, created_by, idempotency_key`;

export class MigrationHistory {
  constructor(private readonly session: ProjectSession) {}

  /** Makes the table (or adds the columns an older CLI did not make) and serializes writers. */
  async prepare(): Promise<void> {
    await this.session.run(`select pg_advisory_xact_lock(${historyLock});
      create schema if not exists supabase_migrations;
      create table if not exists ${table} (version text not null primary key);
      alter table ${table} add column if not exists statements text[];
      alter table ${table} add column if not exists name text;
      alter table ${table} add column if not exists rollback text[];
      alter table ${table} add column if not exists created_by text;
      alter table ${table} add column if not exists idempotency_key text unique`);
  }

  /** Whether the table exists (reading never makes it). */
  private async exists(): Promise<boolean> {
    const [row] = await this.session.run<{ found: boolean }>("select to_regclass($1) is not null as found", [table]);
    return row?.found === true;
  }

  async list(): Promise<{ version: string; name: string }[]> {
    if (!(await this.exists())) return [];
    return this.session.run<{ version: string; name: string }>(`select version, coalesce(name, '') as name from ${table} order by version`);
  }

  async get(version: string): Promise<MigrationRecord | undefined> {
    if (!(await this.exists())) return undefined;
    const [row] = await this.session.run<MigrationRecord>(`select ${columns} from ${table} where version = $1`, [version]);
    return row;
  }

  async byIdempotencyKey(key: string): Promise<MigrationRecord | undefined> {
    const [row] = await this.session.run<MigrationRecord>(`select ${columns} from ${table} where idempotency_key = $1`, [key]);
    return row;
  }

  /** Versions at and after `gte`, newest first. */
  async from(gte: string): Promise<MigrationRecord[]> {
    if (!(await this.exists())) return [];
    return this.session.run<MigrationRecord>(`select ${columns} from ${table} where version ~ '^\\d+$' and version::numeric >= $1::numeric order by version::numeric desc`, [gte]);
  }

  /** Records a migration under a new version: now as YYYYMMDDHHMMSS (UTC), after every other. */
  async insert(migration: NewMigration): Promise<string> {
    const [row] = await this.session.run<{ version: string }>(
      `insert into ${table} (version, name, statements, rollback, created_by, idempotency_key)
       select greatest(to_char(now() at time zone 'utc', 'YYYYMMDDHH24MISS')::numeric,
                       coalesce(max(version::numeric) filter (where version ~ '^\\d+$'), 0) + 1)::text,
              $1, $2, $3, $4, $5
       from ${table} returning version`,
      [migration.name, migration.statements, migration.rollback, migration.createdBy, migration.idempotencyKey ?? null],
    );
    return row!.version;
  }

  async replace(version: string, migration: NewMigration): Promise<void> {
    await this.session.run(`update ${table} set name = $2, statements = $3, rollback = $4, created_by = $5 where version = $1`, [
      version,
      migration.name,
      migration.statements,
      migration.rollback,
      migration.createdBy,
    ]);
  }

  async patch(version: string, changes: { name?: string; rollback?: string[] }): Promise<boolean> {
    const rows = await this.session.run(
      `update ${table} set name = coalesce($2, name), rollback = coalesce($3, rollback) where version = $1 returning version`,
      [version, changes.name ?? null, changes.rollback ?? null],
    );
    return rows.length > 0;
  }

  async remove(versions: string[]): Promise<void> {
    await this.session.run(`delete from ${table} where version = any($1)`, [versions]);
  }
}

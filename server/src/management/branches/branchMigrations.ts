// Branches stage: a project's migration history (`supabase_migrations.schema_migrations`) → read
// on its read-only login, and replayed on another project's database on that project's owner
// login, in one transaction (all applied and recorded, or none), with a log of what ran. A
// statement such as `reset role` only returns to the owner: the login holds nothing else.
import { sqlState } from "../platform/sql";
import type { ProjectSession } from "../tenants/projectSession";

export interface Migration {
  version: string;
  name: string | null;
  statements: string[];
}

/** The migration history table as the CLI keeps it (made by the owner when a replay needs it). */
const migrationsTableSql = `create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (version text not null primary key, statements text[], name text)`;

export async function migrationsOf(session: ProjectSession): Promise<Migration[]> {
  try {
    return await session.run<Migration>(
      "select version, name, coalesce(statements, '{}') as statements from supabase_migrations.schema_migrations order by version",
      [],
    );
  } catch (e) {
    // No history yet: the project never ran a migration.
    if (sqlState(e) === "42P01" || sqlState(e) === "3F000") return [];
    throw e;
  }
}

/** Applies `migrations` and records them; throws with the log so far on failure. */
export async function applyMigrations(session: ProjectSession, migrations: Migration[], log: string[]): Promise<void> {
  try {
    await session.transaction(async () => {
      await session.run(migrationsTableSql);
      for (const m of migrations) {
        log.push(`applying migration ${m.version}${m.name ? ` ${m.name}` : ""} (${m.statements.length} statements)`);
        for (const statement of m.statements) await session.run(statement);
        await session.run("insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)", [m.version, m.name, m.statements]);
      }
    });
  } catch (e) {
    log.push(`failed: ${(e as Error).message}`);
    throw e;
  }
}

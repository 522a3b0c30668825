// Branches stage: a project's migration history (`supabase_migrations.schema_migrations`) → read,
// and replayed on another project's database as that project's owner role, in one transaction
// (all applied and recorded, or none), with a log of what ran.
import format from "pg-format";
import { sqlState, type Sql } from "../platform/sql";
import { historyOwnerSql, migrationsTableSql } from "./branchDdl";

export interface Migration {
  version: string;
  name: string | null;
  statements: string[];
}

export async function migrationsOf(sql: Sql): Promise<Migration[]> {
  try {
    return await sql.rows<Migration>(
      "select version, name, coalesce(statements, '{}') as statements from supabase_migrations.schema_migrations order by version",
    );
  } catch (e) {
    // No history yet: the project never ran a migration.
    if (sqlState(e) === "42P01" || sqlState(e) === "3F000") return [];
    throw e;
  }
}

/** Applies `migrations` as `ownerRole` and records them; throws with the log so far on failure. */
export async function applyMigrations(sql: Sql, ownerRole: string, migrations: Migration[], log: string[]): Promise<void> {
  await sql.rows("begin");
  try {
    await sql.rows(migrationsTableSql);
    for (const statement of historyOwnerSql(ownerRole)) await sql.rows(statement);
    await sql.rows(format("set local role %I", ownerRole));
    for (const m of migrations) {
      log.push(`applying migration ${m.version}${m.name ? ` ${m.name}` : ""} (${m.statements.length} statements)`);
      for (const statement of m.statements) await sql.rows(statement);
      await sql.rows("insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)", [m.version, m.name, m.statements]);
    }
    await sql.rows("commit");
  } catch (e) {
    await sql.rows("rollback").catch(() => {});
    log.push(`failed: ${(e as Error).message}`);
    throw e;
  }
}

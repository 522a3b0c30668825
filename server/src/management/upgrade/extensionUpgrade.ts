// Upgrade stage (Management API): a project database → the pg_graphql version it has and the one
// its server offers, and the upgrade itself: drop and re-create the extension in one transaction
// (each release's install script is self-contained and grants what callers need).
import type { Sql } from "../platform/sql";

export interface ExtensionVersions {
  installed: string | undefined;
  available: string | undefined;
  /** The server's PostgreSQL major version, e.g. "15". */
  postgresMajor: string;
}

export async function extensionVersions(sql: Sql): Promise<ExtensionVersions> {
  const row = await sql.one<{ installed: string | null; available: string | null; major: string }>(
    `select (select extversion from pg_extension where extname = 'pg_graphql') as installed,
            (select default_version from pg_available_extensions where name = 'pg_graphql') as available,
            (current_setting('server_version_num')::int / 10000)::text as major`,
  );
  return { installed: row!.installed ?? undefined, available: row!.available ?? undefined, postgresMajor: row!.major };
}

/** Re-creates pg_graphql at the server's default version; all or nothing. */
export async function upgradeExtension(sql: Sql): Promise<void> {
  await sql.rows("begin");
  try {
    await sql.rows("drop extension pg_graphql");
    await sql.rows("create extension pg_graphql");
    await sql.rows("commit");
  } catch (e) {
    await sql.rows("rollback");
    throw e;
  }
}

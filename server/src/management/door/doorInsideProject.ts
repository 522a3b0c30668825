// Door (kernel): the few statements that need a superuser inside a project's own database →
// run on a pinned session (see pinnedSession.ts), each naming only platform objects: the
// pg_graphql upgrade, creating an untrusted extension the platform offers, and handing the
// platform-made migration history and template grants over. No tenant object is read or run.
import format from "pg-format";
import type { Sql } from "../platform/sql";

/** Untrusted extensions the platform creates for a project (database webhooks need pg_net). */
export const platformExtensions = new Set(["pg_net"]);

type ProjectSession = <T>(database: string, work: (sql: Sql) => Promise<T>) => Promise<T>;

export class DoorInsideProject {
  constructor(private readonly inProject: ProjectSession) {}

  /** The installed version of an extension in the database, from its catalog row. */
  async extensionVersion(database: string, name: string): Promise<string | undefined> {
    const row = await this.inProject(database, (sql) => sql.one<{ v: string }>("select extversion as v from pg_catalog.pg_extension where extname = $1", [name]));
    return row?.v;
  }

  /** Re-creates pg_graphql at the server's default version; all or nothing. */
  async recreatePgGraphql(database: string): Promise<void> {
    await this.inProject(database, async (sql) => {
      await sql.rows("begin");
      try {
        await sql.rows("drop extension pg_graphql");
        await sql.rows("create extension pg_graphql");
        await sql.rows("commit");
      } catch (e) {
        await sql.rows("rollback").catch(() => {});
        throw e;
      }
    });
  }

  /** Creates an extension the platform offers that a tenant cannot create itself (untrusted). */
  async createExtension(database: string, name: string): Promise<void> {
    if (!platformExtensions.has(name)) throw new Error(`the platform does not create the extension ${name} in a project's database`);
    await this.inProject(database, async (sql) => {
      if (await sql.one("select 1 from pg_catalog.pg_extension where extname = $1", [name])) return;
      // PostgreSQL refuses to adopt a schema or object the extension's script would reuse.
      await sql.rows(format("create extension %I", name));
    });
  }

  /** Gives `owner` the migration history schema and table where the platform's superuser made
   * them (branches replayed before their replays ran as the owner). Objects a tenant made are
   * never touched: only superuser-owned ones change owner. */
  async handHistoryTo(database: string, owner: string): Promise<void> {
    await this.inProject(database, async (sql) => {
      const schema = await sql.one<{ super: boolean }>(
        `select r.rolsuper as super from pg_catalog.pg_namespace n join pg_catalog.pg_roles r on r.oid = n.nspowner where n.nspname = 'supabase_migrations'`,
      );
      if (schema?.super) await sql.rows(format("alter schema supabase_migrations owner to %I", owner));
      const table = await sql.one<{ super: boolean }>(
        `select r.rolsuper as super from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           join pg_catalog.pg_roles r on r.oid = c.relowner where n.nspname = 'supabase_migrations' and c.relname = 'schema_migrations' and c.relkind = 'r'`,
      );
      if (table?.super) await sql.rows(format("alter table supabase_migrations.schema_migrations owner to %I", owner));
    });
  }

  /** What the owner of a project needs on the platform's own objects: the auth helpers. */
  async grantPlatformUsage(database: string, owner: string): Promise<void> {
    await this.inProject(database, (sql) => sql.rows(format("grant usage on schema auth to %I", owner)));
  }

  /** Takes back what the platform granted `role` on its own objects in the database (the auth
   * schema), so a copy of a parent's database keeps no privilege of the parent's owner. */
  async revokePlatformGrants(database: string, role: string): Promise<void> {
    await this.inProject(database, async (sql) => {
      if (!(await sql.one("select 1 from pg_catalog.pg_roles where rolname = $1", [role]))) return;
      await sql.rows(format("revoke all on schema auth from %I", role));
      await sql.rows(format("revoke all on all functions in schema auth from %I", role));
    });
  }
}

// Door (kernel): the databases of a project server → made (copies of the project template or of
// a parent), opened to their roles, closed, renamed, measured and dropped, all from the server's
// maintenance database: CREATE/DROP/ALTER DATABASE and GRANT ON DATABASE never need a session in
// the tenant's own database, and read only shared catalogs.
import format from "pg-format";
import type { Sql } from "../platform/sql";

type Session = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

export interface DatabaseAccess {
  /** Gets CONNECT and TEMPORARY (the owner). */
  owner: string;
  /** Get CONNECT. */
  connect: string[];
}

export class DoorDatabases {
  constructor(private readonly maintenance: Session) {}

  /** CREATE DATABASE ... TEMPLATE; PostgreSQL's 55006 when other sessions use the template. */
  async create(name: string, owner: string, template: string, connectionLimit: number): Promise<void> {
    await this.maintenance((sql) => sql.rows(format("create database %I owner %I template %I connection limit %s", name, owner, template, connectionLimit)));
  }

  async drop(name: string): Promise<void> {
    await this.maintenance((sql) => sql.rows(format("drop database if exists %I with (force)", name)));
  }

  async exists(name: string): Promise<boolean> {
    return (await this.maintenance((sql) => sql.one("select 1 from pg_catalog.pg_database where datname = $1", [name]))) !== undefined;
  }

  /** Only the listed roles may connect: PUBLIC's default CONNECT and TEMPORARY are taken back. */
  async grantAccess(database: string, access: DatabaseAccess): Promise<void> {
    await this.maintenance(async (sql) => {
      await sql.rows(format("revoke connect, temporary on database %I from public", database));
      await sql.rows(format("grant connect, temporary on database %I to %I", database, access.owner));
      const present = await sql.rows<{ rolname: string }>("select rolname from pg_catalog.pg_roles where rolname = any($1::text[])", [access.connect]);
      for (const { rolname } of present) await sql.rows(format("grant connect on database %I to %I", database, rolname));
    });
  }

  /** The grants on `from` (CONNECT, TEMPORARY, CREATE to each role) given on `to` as well. */
  async copyAccess(from: string, to: string): Promise<void> {
    await this.maintenance(async (sql) => {
      const grants = await sql.rows<{ grantee: string; privilege: string }>(
        `select r.rolname as grantee, a.privilege_type as privilege
           from pg_catalog.pg_database d, pg_catalog.aclexplode(d.datacl) a
           join pg_catalog.pg_roles r on r.oid = a.grantee
          where d.datname = $1 and a.privilege_type in ('CONNECT', 'TEMPORARY', 'CREATE')`,
        [from],
      );
      await sql.rows(format("revoke connect, temporary on database %I from public", to));
      for (const g of grants) await sql.rows(format(`grant ${g.privilege.toLowerCase()} on database %I to %I`, to, g.grantee));
    });
  }

  async setAllowConnections(database: string, allowed: boolean): Promise<void> {
    await this.maintenance((sql) => sql.rows(format("alter database %I with allow_connections %s", database, allowed ? "true" : "false")));
  }

  /** Sets the limit on each of the databases that has another one. */
  async setConnectionLimit(databases: string[], limit: number): Promise<void> {
    await this.maintenance(async (sql) => {
      const differing = await sql.rows<{ datname: string }>("select datname from pg_catalog.pg_database where datname = any($1::text[]) and datconnlimit <> $2", [databases, limit]);
      for (const { datname } of differing) await sql.rows(format("alter database %I with connection limit %s", datname, limit));
    });
  }

  /** Ends every session of the database (this one runs on another). */
  async endSessions(database: string): Promise<void> {
    await this.maintenance((sql) =>
      sql.rows("select pg_catalog.pg_terminate_backend(pid) from pg_catalog.pg_stat_activity where datname = $1 and pid <> pg_catalog.pg_backend_pid()", [database]),
    );
  }

  /** Ends the database's idle sessions (waiting up to a second for each to go) and answers how
   * many sessions are left: those running a statement or inside a transaction. */
  async endIdleSessions(database: string): Promise<number> {
    const row = await this.maintenance((sql) =>
      sql.one<{ left: number }>(
        `select count(*) filter (where not ended)::int as left from (
           select case when state = 'idle' then pg_catalog.pg_terminate_backend(pid, 1000) else false end as ended
             from pg_catalog.pg_stat_activity where datname = $1 and pid <> pg_catalog.pg_backend_pid()) s`,
        [database],
      ),
    );
    return row!.left;
  }

  /** Those of the databases that refuse connections (ALLOW_CONNECTIONS false). */
  async closed(databases: string[]): Promise<string[]> {
    const rows = await this.maintenance((sql) =>
      sql.rows<{ datname: string }>("select datname from pg_catalog.pg_database where datname = any($1::text[]) and not datallowconn", [databases]),
    );
    return rows.map((r) => r.datname);
  }

  /** Whether sessions other than the platform's own hold the database. */
  async sessionCount(database: string): Promise<number> {
    const row = await this.maintenance((sql) => sql.one<{ n: number }>("select count(*)::int as n from pg_catalog.pg_stat_activity where datname = $1", [database]));
    return row!.n;
  }

  /** The database's own settings (ALTER DATABASE ... SET for every role), as name=value. */
  async settings(database: string): Promise<string[]> {
    const rows = await this.maintenance((sql) =>
      sql.rows<{ setting: string }>(
        `select pg_catalog.unnest(s.setconfig) as setting from pg_catalog.pg_db_role_setting s
           join pg_catalog.pg_database d on d.oid = s.setdatabase where d.datname = $1 and s.setrole = 0`,
        [database],
      ),
    );
    return rows.map((r) => r.setting);
  }

  async setSetting(database: string, name: string, value: string): Promise<void> {
    await this.maintenance((sql) => sql.rows(format("alter database %I set %I = %L", database, name, value)));
  }

  async resetSetting(database: string, name: string): Promise<void> {
    await this.maintenance((sql) => sql.rows(format("alter database %I reset %I", database, name)));
  }

  /** Puts `replacement` in the place of `database`: its settings and grants kept, the old one dropped. */
  async swap(database: string, replacement: string): Promise<void> {
    const replaced = `${database}_replaced`;
    await this.maintenance(async (sql) => {
      await sql.rows(format("drop database if exists %I with (force)", replaced));
      await sql.rows("select pg_catalog.pg_terminate_backend(pid) from pg_catalog.pg_stat_activity where datname = $1", [database]);
      await sql.rows(format("alter database %I rename to %I", database, replaced));
      await sql.rows(format("alter database %I rename to %I", replacement, database));
      // The database's settings (its own and per role) go over as stored: written again with
      // ALTER DATABASE ... SET, a list such as a search_path would come back as one quoted name.
      await sql.rows(
        `update pg_catalog.pg_db_role_setting set setdatabase = (select oid from pg_catalog.pg_database where datname = $1)
          where setdatabase = (select oid from pg_catalog.pg_database where datname = $2)`,
        [database, replaced],
      );
      await sql.rows(format("drop database %I with (force)", replaced));
    });
  }

  async bytes(database: string): Promise<number> {
    const row = await this.maintenance((sql) => sql.one<{ size: string }>("select pg_catalog.pg_database_size($1::pg_catalog.name)::text as size", [database]));
    return Number(row!.size);
  }

  /** How many databases other than `own` and the templates the server holds. */
  async countOthers(own: string[]): Promise<number> {
    const row = await this.maintenance((sql) =>
      sql.one<{ n: number }>("select count(*)::int as n from pg_catalog.pg_database where not datistemplate and datname <> all($1::text[])", [own]),
    );
    return row!.n;
  }
}

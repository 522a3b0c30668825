// Door (kernel): a project server's settings → read from its maintenance database (pg_settings,
// the database-level values in pg_db_role_setting), written per database or with ALTER SYSTEM,
// and pg_hba.conf's managed blocks checked and reloaded. Values a tenant could influence are
// never read from the tenant's own database.
import { constants } from "node:fs";
import { access, readFile, writeFile } from "node:fs/promises";
import format from "pg-format";
import type { Sql } from "../platform/sql";

type Session = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

export interface SettingRow {
  name: string;
  /** The server's value in its base unit, and as shown with its unit. */
  setting: string;
  shown: string;
  context: string;
  /** Written for the server's next start (ALTER SYSTEM of a postmaster setting). */
  pending_restart: boolean;
}

export type HbaOutcome = { kind: "applied"; file: string } | { kind: "notManaged"; reason: string };

async function alterSystem(sql: Sql, changes: Array<[string, string]>): Promise<void> {
  const before = await sql.rows<{ name: string; setting: string }>(
    `select distinct on (name) name, setting from pg_catalog.pg_file_settings
      where name = any($1::text[]) and sourcefile like '%/postgresql.auto.conf' order by name, seqno desc`,
    [changes.map(([name]) => name)],
  );
  const previous = new Map(before.map((r) => [r.name, r.setting]));
  const done: string[] = [];
  try {
    for (const [name, value] of changes) {
      await sql.rows(format("alter system set %I = %L", name, value));
      done.push(name);
    }
  } catch (e) {
    for (const name of done) {
      const old = previous.get(name);
      await sql.rows(old === undefined ? format("alter system reset %I", name) : format("alter system set %I = %L", name, old));
    }
    throw e;
  }
  await sql.rows("select pg_catalog.pg_reload_conf()");
}

export class DoorServerSettings {
  constructor(private readonly maintenance: Session) {}

  async rows(names: string[]): Promise<SettingRow[]> {
    return this.maintenance((sql) =>
      sql.rows<SettingRow>(
        "select name, setting, pg_catalog.current_setting(name) as shown, context, pending_restart from pg_catalog.pg_settings where name = any($1::text[]) order by name",
        [names],
      ),
    );
  }

  /** Each setting's value as a new session of the database shows it (its own value first). */
  async forDatabase(database: string, names: string[]): Promise<SettingRow[]> {
    return this.maintenance(async (sql) => {
      await sql.rows("begin");
      try {
        // Applied for this transaction only, the database's values show through pg_settings
        // with the server's units, as a session of that database would see them.
        const own = await sql.rows<{ setting: string }>(
          `select pg_catalog.unnest(s.setconfig) as setting from pg_catalog.pg_db_role_setting s
             join pg_catalog.pg_database d on d.oid = s.setdatabase where d.datname = $1 and s.setrole = 0`,
          [database],
        );
        for (const { setting } of own) {
          const eq = setting.indexOf("=");
          const name = setting.slice(0, eq);
          if (names.includes(name)) await sql.rows("select pg_catalog.set_config($1, $2, true)", [name, setting.slice(eq + 1)]);
        }
        return await sql.rows<SettingRow>(
          "select name, setting, pg_catalog.current_setting(name) as shown, context, pending_restart from pg_catalog.pg_settings where name = any($1::text[]) order by name",
          [names],
        );
      } finally {
        await sql.rows("rollback");
      }
    });
  }

  /** Per-database values and server-wide ones (ALTER SYSTEM, then a reload), all or none: the
   * per-database ones wait uncommitted while ALTER SYSTEM (which cannot run in a transaction)
   * writes on a second session, and a refused server-wide value puts back what
   * postgresql.auto.conf had for those already written. */
  async apply(database: string, perDatabase: Array<[string, string]>, serverWide: Array<[string, string]>): Promise<void> {
    await this.maintenance(async (sql) => {
      await sql.rows("begin");
      try {
        for (const [name, value] of perDatabase) await sql.rows(format("alter database %I set %I = %L", database, name, value));
        if (serverWide.length > 0) await this.maintenance((system) => alterSystem(system, serverWide));
        await sql.rows("commit");
      } catch (e) {
        await sql.rows("rollback").catch(() => {});
        throw e;
      }
    });
  }

  async ssl(): Promise<boolean> {
    const row = await this.maintenance((sql) => sql.one<{ on: boolean }>("select pg_catalog.current_setting('ssl')::pg_catalog.bool as on"));
    return row!.on;
  }

  async version(): Promise<string> {
    const row = await this.maintenance((sql) => sql.one<{ v: string }>("select pg_catalog.current_setting('server_version') as v"));
    return row!.v;
  }

  /** The default version of an extension the server offers, or undefined. */
  async availableExtension(name: string): Promise<string | undefined> {
    const row = await this.maintenance((sql) => sql.one<{ v: string }>("select default_version as v from pg_catalog.pg_available_extensions where name = $1", [name]));
    return row?.v;
  }

  /** Extensions a database owner may create without a superuser (trusted ones). */
  async trustedExtensions(): Promise<string[]> {
    const rows = await this.maintenance((sql) => sql.rows<{ name: string }>("select distinct name from pg_catalog.pg_available_extension_versions where trusted"));
    return rows.map((r) => r.name);
  }

  /** Rewrites pg_hba.conf with `edit` when this process can write it; checked by PostgreSQL
   * before the reload, and put back when PostgreSQL finds an error in it. */
  async editHba(edit: (text: string) => string): Promise<HbaOutcome> {
    return this.maintenance(async (sql) => {
      const file = (await sql.one<{ f: string }>("select pg_catalog.current_setting('hba_file') as f"))!.f;
      try {
        await access(file, constants.R_OK | constants.W_OK);
      } catch {
        return { kind: "notManaged", reason: `this server's pg_hba.conf (${file}) is not a file this process can write` };
      }
      const before = await readFile(file, "utf8");
      await writeFile(file, edit(before));
      const errors = await sql.rows<{ line_number: number; error: string }>("select line_number, error from pg_catalog.pg_hba_file_rules where error is not null");
      if (errors.length > 0) {
        await writeFile(file, before);
        throw new Error(`pg_hba.conf would not load: ${errors.map((e) => `line ${e.line_number}: ${e.error}`).join("; ")}`);
      }
      await sql.rows("select pg_catalog.pg_reload_conf()");
      return { kind: "applied", file };
    });
  }
}

// Settings stage: temporary login roles for a project's database (the CLI's `login-role`). Each
// is a role with a random password stored as a SCRAM verifier and VALID UNTIL its expiry, so
// password authentication refuses it afterwards; the sweep then drops it (its sessions ended).
// It belongs to the group role `loginRoleGroup`, which pg_hba.conf can name (`+group`) to make
// these roles authenticate by password even where other roles are trusted.
import { randomBytes } from "node:crypto";
import format from "pg-format";
import { withConnection, type Sql } from "../platform/sql";
import type { ProjectServers } from "../provision/projectServers";
import { projectNames } from "../provision/projectDdl";
import { scramVerifier } from "../provision/scramVerifier";
import type { ProjectRecord } from "../store/projectStore";

export const loginRoleGroup = "cli_login_roles";
export const loginRoleTtlSeconds = 3600;

export interface LoginRole {
  role: string;
  password: string;
  ttl_seconds: number;
}

interface LoginRoleRow {
  role_name: string;
  ref: string;
  server: string;
}

export async function ensureLoginRoleGroup(sql: Sql): Promise<void> {
  await sql.rows(`do $$ begin
    if not exists (select 1 from pg_roles where rolname = '${loginRoleGroup}') then
      create role ${loginRoleGroup} nologin;
    end if;
  exception when duplicate_object then null;
  end $$`);
}

export class LoginRoles {
  constructor(
    private readonly platform: Sql,
    private readonly servers: ProjectServers,
    private readonly now: () => number,
  ) {}

  async create(project: ProjectRecord, readOnly: boolean): Promise<LoginRole> {
    const role = `${project.ref}_cli_${randomBytes(5).toString("hex")}`;
    const password = randomBytes(24).toString("base64url");
    const expires = new Date(this.now() + loginRoleTtlSeconds * 1000);
    // Recorded first: a role made but not recorded could never be swept.
    await this.platform.rows("insert into platform.login_roles (role_name, ref, server, read_only, expires_at) values ($1, $2, $3, $4, $5)", [
      role,
      project.ref,
      project.server,
      readOnly,
      expires,
    ]);
    await withConnection(this.servers.get(project.server).adminUrl, async (sql) => {
      await ensureLoginRoleGroup(sql);
      await sql.rows(
        format("create role %I login noinherit password %L valid until %L in role %I", role, scramVerifier(password), expires.toISOString(), loginRoleGroup),
      );
      await sql.rows(format("grant connect on database %I to %I", project.database_name, role));
      if (readOnly) {
        await sql.rows(format("grant pg_read_all_data to %I", role));
        await sql.rows(format("alter role %I set default_transaction_read_only = on", role));
      } else {
        // Acting as the owner, so what it creates belongs to the project, not to this role.
        await sql.rows(format("grant %I to %I", project.owner_role, role));
        await sql.rows(format("alter role %I set role %I", role, project.owner_role));
      }
      await sql.rows(format("alter role %I inherit", role));
    });
    return { role, password, ttl_seconds: loginRoleTtlSeconds };
  }

  /** Drops the project's login roles; answers how many there were. */
  async dropForProject(ref: string): Promise<number> {
    const rows = await this.platform.rows<LoginRoleRow>("select role_name, ref, server from platform.login_roles where ref = $1", [ref]);
    for (const row of rows) await this.drop(row);
    return rows.length;
  }

  /** Drops the roles past their expiry and those whose project is gone. */
  async dropExpired(): Promise<string[]> {
    const rows = await this.platform.rows<LoginRoleRow>(
      `select l.role_name, l.ref, l.server from platform.login_roles l
        where l.expires_at <= to_timestamp($1::float8 / 1000) or not exists (select 1 from platform.projects p where p.ref = l.ref)`,
      [this.now()],
    );
    for (const row of rows) await this.drop(row);
    return rows.map((r) => r.role_name);
  }

  private async drop(row: LoginRoleRow): Promise<void> {
    const adminUrl = this.servers.get(row.server).adminUrl;
    await withConnection(adminUrl, async (sql) => {
      await sql.rows("select pg_terminate_backend(pid) from pg_stat_activity where usename = $1", [row.role_name]);
      const exists = await sql.one("select 1 from pg_roles where rolname = $1", [row.role_name]);
      if (exists) {
        // Anything it made goes to the project's owner; then its grants go.
        const names = projectNames(row.ref);
        const database = await sql.one("select 1 from pg_database where datname = $1", [names.database]);
        if (database) {
          await withConnection(this.servers.adminUrlFor(row.server, names.database), async (db) => {
            await db.rows(format("reassign owned by %I to %I", row.role_name, names.owner));
            await db.rows(format("drop owned by %I", row.role_name));
          });
        }
        await sql.rows(format("drop role if exists %I", row.role_name));
      }
    });
    await this.platform.rows("delete from platform.login_roles where role_name = $1", [row.role_name]);
  }
}

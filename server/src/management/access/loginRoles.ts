// Settings stage: temporary login roles for a project's database (the CLI's `login-role`). Each
// is a role with a random password stored as a SCRAM verifier and VALID UNTIL its expiry, so
// password authentication refuses it afterwards; the sweep then drops it (its sessions ended).
// It belongs to the group role `loginRoleGroup`, which pg_hba.conf can name (`+group`) to make
// these roles authenticate by password even where other roles are trusted.
import { randomBytes } from "node:crypto";
import type { SuperuserDoor } from "../door/superuserDoor";
import type { Sql } from "../platform/sql";
import { projectNames } from "../tenants/projectNames";
import { scramVerifier } from "../tenants/scramVerifier";
import type { ProjectRecord } from "../tenants/projectStore";

export { loginRoleGroup } from "../door/doorRoles";
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

export class LoginRoles {
  constructor(
    private readonly platform: Sql,
    private readonly door: SuperuserDoor,
    private readonly now: () => number,
    /** Sessions each login role may hold. */
    private readonly connectionLimit: number,
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
    await this.door.server(project.server).roles.createCliLogin(
      { role, verifier: scramVerifier(password), validUntil: expires.toISOString(), database: project.database_name, connectionLimit: this.connectionLimit },
      readOnly ? { kind: "readOnly" } : { kind: "owner", owner: project.owner_role },
    );
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
    // Anything it made goes to the project's owner; then its grants go.
    const names = projectNames(row.ref);
    await this.door.server(row.server).roles.dropLogin(row.role_name, names.database, names.owner);
    await this.platform.rows("delete from platform.login_roles where role_name = $1", [row.role_name]);
  }
}

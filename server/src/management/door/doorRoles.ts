// Door (kernel): the roles of a project server → made, changed and dropped on its maintenance
// database, as a fixed list of statements whose names are quoted by pg-format. Tenants' own
// logins (owner, CLI and JIT logins) carry a connection limit; the platform's logins do not.
import format from "pg-format";
import { sqlState, type Sql } from "../platform/sql";

type Session = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;
type ProjectSession = <T>(database: string, work: (sql: Sql) => Promise<T>) => Promise<T>;

/** The group every temporary CLI and JIT login belongs to (pg_hba.conf can name `+group`). */
export const loginRoleGroup = "cli_login_roles";

const plain = "nosuperuser nocreatedb nocreaterole noreplication";

export interface NewProjectRoles {
  owner: string;
  ownerVerifier: string;
  authenticator: string;
  authenticatorVerifier: string;
  /** The owner's connection limit (its password is the tenant's). */
  ownerConnectionLimit: number;
}

export interface PlatformLogins {
  owner: string;
  ownerLogin: string;
  ownerLoginVerifier: string;
  readOnly: string;
  readOnlyVerifier: string;
  database: string;
}

export interface TemporaryLogin {
  role: string;
  verifier: string;
  /** ISO time, or "infinity". */
  validUntil: string;
  database: string;
  connectionLimit: number;
}

async function createOrAlter(sql: Sql, create: string, alter: string): Promise<void> {
  try {
    await sql.rows(create);
  } catch (e) {
    if (sqlState(e) !== "42710") throw e;
    await sql.rows(alter);
  }
}

async function ensureGroup(sql: Sql): Promise<void> {
  if (await sql.one("select 1 from pg_catalog.pg_roles where rolname = $1", [loginRoleGroup])) return;
  try {
    await sql.rows(format("create role %I nologin", loginRoleGroup));
  } catch (e) {
    // Another process made it first.
    if (sqlState(e) !== "42710" && sqlState(e) !== "23505") throw e;
  }
}

export class DoorRoles {
  constructor(
    private readonly maintenance: Session,
    private readonly inProject: ProjectSession,
  ) {}

  async createProjectRoles(roles: NewProjectRoles): Promise<void> {
    await this.maintenance(async (sql) => {
      // Never CREATEROLE: in PostgreSQL 15 it could grant itself pg_execute_server_program.
      await sql.rows(
        format(`create role %I login inherit ${plain} nobypassrls connection limit %s password %L`, roles.owner, roles.ownerConnectionLimit, roles.ownerVerifier),
      );
      await sql.rows(format(`create role %I login noinherit ${plain} nobypassrls password %L`, roles.authenticator, roles.authenticatorVerifier));
      await sql.rows(format("grant anon, authenticated, service_role to %I", roles.authenticator));
    });
  }

  /** The platform's two logins into a project's database, made or brought back to what they should be. */
  async ensurePlatformLogins(logins: PlatformLogins): Promise<void> {
    await this.maintenance(async (sql) => {
      // NOINHERIT: the login itself holds nothing; it may only become the owner.
      await createOrAlter(
        sql,
        format(`create role %I login ${plain} noinherit nobypassrls password %L`, logins.ownerLogin, logins.ownerLoginVerifier),
        format(`alter role %I with login ${plain} noinherit nobypassrls password %L`, logins.ownerLogin, logins.ownerLoginVerifier),
      );
      await createOrAlter(
        sql,
        format(`create role %I login ${plain} inherit bypassrls password %L`, logins.readOnly, logins.readOnlyVerifier),
        format(`alter role %I with login ${plain} inherit bypassrls password %L`, logins.readOnly, logins.readOnlyVerifier),
      );
      await sql.rows(format("grant %I to %I", logins.owner, logins.ownerLogin));
      await sql.rows(format("grant pg_read_all_data to %I", logins.readOnly));
      // A default the session can change; the privileges above are what a session cannot.
      await sql.rows(format("alter role %I set default_transaction_read_only = on", logins.readOnly));
      await sql.rows(format("grant connect on database %I to %I, %I", logins.database, logins.ownerLogin, logins.readOnly));
    });
  }

  /** A short-lived login that is a member of `memberOf` (inheriting), for one piece of work in `database`. */
  async createWorkLogin(role: string, verifier: string, memberOf: string[], database: string): Promise<void> {
    await this.maintenance(async (sql) => {
      await createOrAlter(
        sql,
        format(`create role %I login inherit ${plain} nobypassrls connection limit 2 password %L`, role, verifier),
        format(`alter role %I with login inherit ${plain} nobypassrls connection limit 2 password %L`, role, verifier),
      );
      for (const member of memberOf) await sql.rows(format("grant %I to %I", member, role));
      await sql.rows(format("grant connect on database %I to %I", database, role));
    });
  }

  /** A CLI login role: read-only (pg_read_all_data) or acting as the project's owner. */
  async createCliLogin(login: TemporaryLogin, access: { kind: "readOnly" } | { kind: "owner"; owner: string }): Promise<void> {
    await this.maintenance(async (sql) => {
      await ensureGroup(sql);
      await sql.rows(
        format(
          `create role %I login noinherit ${plain} nobypassrls connection limit %s password %L valid until %L in role %I`,
          login.role,
          login.connectionLimit,
          login.verifier,
          login.validUntil,
          loginRoleGroup,
        ),
      );
      await sql.rows(format("grant connect on database %I to %I", login.database, login.role));
      if (access.kind === "readOnly") {
        await sql.rows(format("grant pg_read_all_data to %I", login.role));
        await sql.rows(format("alter role %I set default_transaction_read_only = on", login.role));
      } else {
        // Acting as the owner, so what it creates belongs to the project, not to this role.
        await sql.rows(format("grant %I to %I", access.owner, login.role));
        await sql.rows(format("alter role %I set role %I", login.role, access.owner));
      }
      await sql.rows(format("alter role %I inherit", login.role));
    });
  }

  /** A member's JIT login: made or given a new password and expiry, then granted `role`. */
  async upsertJitLogin(login: TemporaryLogin, role: string): Promise<void> {
    await this.maintenance(async (sql) => {
      await ensureGroup(sql);
      const exists = await sql.one("select 1 from pg_catalog.pg_roles where rolname = $1", [login.role]);
      const verb = exists ? "alter" : "create";
      await sql.rows(
        format(`${verb} role %I login inherit ${plain} nobypassrls connection limit %s password %L valid until %L`, login.role, login.connectionLimit, login.verifier, login.validUntil),
      );
      if (!exists) await sql.rows(format("grant %I to %I", loginRoleGroup, login.role));
      await sql.rows(format("grant connect on database %I to %I", login.database, login.role));
      await sql.rows(format("grant %I to %I", role, login.role));
    });
  }

  async revokeMembership(role: string, from: string): Promise<void> {
    await this.maintenance(async (sql) => {
      if (await sql.one("select 1 from pg_catalog.pg_roles where rolname = $1", [from])) await sql.rows(format("revoke %I from %I", role, from));
    });
  }

  /** Ends a login's sessions, gives what it owns in `database` to `heir`, and drops it. */
  async dropLogin(role: string, database: string | undefined, heir: string): Promise<void> {
    const exists = await this.maintenance(async (sql) => {
      if (!(await sql.one("select 1 from pg_catalog.pg_roles where rolname = $1", [role]))) return false;
      await sql.rows("select pg_catalog.pg_terminate_backend(pid) from pg_catalog.pg_stat_activity where usename = $1", [role]);
      return true;
    });
    if (!exists) return;
    const databaseExists = database !== undefined && (await this.maintenance((sql) => sql.one("select 1 from pg_catalog.pg_database where datname = $1", [database])));
    if (databaseExists) {
      // REASSIGN and DROP OWNED change owners and privileges only: no tenant code runs.
      await this.inProject(database!, async (sql) => {
        await sql.rows(format("reassign owned by %I to %I", role, heir));
        await sql.rows(format("drop owned by %I", role));
      });
    }
    await this.maintenance(async (sql) => {
      if (database !== undefined && databaseExists) await sql.rows(format("revoke all on database %I from %I", database, role));
      await sql.rows(format("drop role if exists %I", role));
    });
  }

  async dropRoles(roles: string[]): Promise<void> {
    await this.maintenance(async (sql) => {
      for (const role of roles) await sql.rows(format("drop role if exists %I", role));
    });
  }

  async setPassword(role: string, verifier: string): Promise<void> {
    await this.maintenance((sql) => sql.rows(format("alter role %I password %L", role, verifier)));
  }

  async setConnectionLimit(roles: string[], limit: number): Promise<void> {
    await this.maintenance(async (sql) => {
      const present = await sql.rows<{ rolname: string }>("select rolname from pg_catalog.pg_roles where rolname = any($1::text[]) and rolconnlimit <> $2", [roles, limit]);
      for (const { rolname } of present) await sql.rows(format("alter role %I connection limit %s", rolname, limit));
    });
  }

  /** The server's superusers (whose objects in a dump are the platform's). */
  async superusers(): Promise<string[]> {
    return (await this.maintenance((sql) => sql.rows<{ rolname: string }>("select rolname from pg_catalog.pg_roles where rolsuper"))).map((r) => r.rolname);
  }

  /** Whether the role logs in with a SCRAM verifier (what a pooler entry tells clients). */
  async usesScram(role: string): Promise<boolean> {
    const row = await this.maintenance((sql) =>
      sql.one<{ scram: boolean }>("select coalesce(bool_or(rolpassword like 'SCRAM-SHA-256$%'), false) as scram from pg_catalog.pg_authid where rolname = $1", [role]),
    );
    return row!.scram;
  }

  /** Whether the role may log in to the database now. */
  async canLogIn(role: string, database: string): Promise<boolean> {
    const row = await this.maintenance((sql) =>
      sql.one<{ ok: boolean }>(
        `select r.rolcanlogin and (r.rolvaliduntil is null or r.rolvaliduntil > pg_catalog.now())
                and pg_catalog.has_database_privilege(r.oid, d.oid, 'CONNECT') and d.datallowconn as ok
           from pg_catalog.pg_roles r, pg_catalog.pg_database d where r.rolname = $1 and d.datname = $2`,
        [role, database],
      ),
    );
    return row?.ok === true;
  }
}

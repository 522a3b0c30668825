// Project stage: a project record → the connection URLs the platform uses inside the project's
// database: `owner` (a login without privileges of its own that starts every session as the
// project's owner role, so RESET ROLE stays the owner) and `read_only` (reads every table, RLS
// bypassed, owns nothing and may write nothing). Made on first use, for old projects too.
import { randomBytes } from "node:crypto";
import format from "pg-format";
import { withUser } from "../platform/connectionUrl";
import { sqlState, withConnection, type Sql } from "../platform/sql";
import { projectNames } from "../provision/projectDdl";
import type { ProjectServers } from "../provision/projectServers";
import { scramVerifier } from "../provision/scramVerifier";
import type { ProjectRecord } from "../store/projectStore";

export type ProjectAccess = "owner" | "read_only";

interface LoginRow {
  owner_login: string;
  owner_password: string;
  read_only_login: string;
  read_only_password: string;
}

/** Where and as whom a project connection logs in, and the session settings it starts with. */
export interface ProjectLogin {
  url: string;
  /** Startup `options`: settings that hold from the first statement (RESET returns to them). */
  options: string;
}

function rolesDdl(project: ProjectRecord, row: LoginRow): string[][] {
  const common = "login nosuperuser nocreatedb nocreaterole noreplication";
  return [
    [
      // NOINHERIT: the login itself holds nothing; it may only become the owner.
      format(`create role %I ${common} noinherit nobypassrls password %L`, row.owner_login, scramVerifier(row.owner_password)),
      format("alter role %I with password %L", row.owner_login, scramVerifier(row.owner_password)),
    ],
    [
      format(`create role %I ${common} inherit bypassrls password %L`, row.read_only_login, scramVerifier(row.read_only_password)),
      format("alter role %I with password %L", row.read_only_login, scramVerifier(row.read_only_password)),
    ],
    [format("grant %I to %I", project.owner_role, row.owner_login)],
    [format("grant pg_read_all_data to %I", row.read_only_login)],
    // A default the session can change; the privileges above are what a session cannot.
    [format("alter role %I set default_transaction_read_only = on", row.read_only_login)],
    [format("grant connect on database %I to %I, %I", project.database_name, row.owner_login, row.read_only_login)],
  ];
}

async function createOrAlter(sql: Sql, [create, alter]: string[]): Promise<void> {
  try {
    await sql.rows(create!);
  } catch (e) {
    if (sqlState(e) !== "42710" || alter === undefined) throw e;
    await sql.rows(alter);
  }
}

export class ProjectLogins {
  private readonly made = new Map<string, Promise<LoginRow>>();

  constructor(
    private readonly platform: Sql,
    private readonly servers: ProjectServers,
  ) {}

  /** The URL and startup options of a connection to the project's database with this access. */
  async login(project: ProjectRecord, access: ProjectAccess, statementTimeoutMs: number): Promise<ProjectLogin> {
    const row = await this.ensure(project);
    const base = this.servers.adminUrlFor(project.server, project.database_name);
    const timeout = `-c statement_timeout=${statementTimeoutMs} -c idle_in_transaction_session_timeout=${Math.max(statementTimeoutMs, 60_000)}`;
    switch (access) {
      case "owner":
        return { url: withUser(base, row.owner_login, row.owner_password), options: `-c role=${project.owner_role} ${timeout}` };
      case "read_only":
        return { url: withUser(base, row.read_only_login, row.read_only_password), options: `-c default_transaction_read_only=on ${timeout}` };
      default: {
        const never: never = access;
        throw new Error(`unknown access ${String(never)}`);
      }
    }
  }

  /** Makes the logins again: their CONNECT is granted on the database, so a database made anew
 * (a branch reset) needs it again. */
  async remake(project: ProjectRecord): Promise<void> {
    this.made.delete(project.ref);
    await this.ensure(project);
  }

  private ensure(project: ProjectRecord): Promise<LoginRow> {
    let made = this.made.get(project.ref);
    if (!made) {
      made = this.make(project);
      this.made.set(project.ref, made);
      made.catch(() => this.made.delete(project.ref));
    }
    return made;
  }

  private async make(project: ProjectRecord): Promise<LoginRow> {
    const names = projectNames(project.ref);
    // The first process to record passwords wins; every process then makes the roles match.
    await this.platform.rows(
      `insert into platform.project_logins (ref, owner_login, owner_password, read_only_login, read_only_password)
       values ($1, $2, $3, $4, $5) on conflict (ref) do nothing`,
      [project.ref, names.ownerLogin, randomBytes(24).toString("base64url"), names.readOnly, randomBytes(24).toString("base64url")],
    );
    const row = (await this.platform.one<LoginRow>(
      "select owner_login, owner_password, read_only_login, read_only_password from platform.project_logins where ref = $1",
      [project.ref],
    ))!;
    await withConnection(this.servers.get(project.server).adminUrl, async (sql) => {
      for (const statements of rolesDdl(project, row)) await createOrAlter(sql, statements);
    });
    return row;
  }
}

// Project stage: a project record → the connection URLs the platform uses inside the project's
// database: `owner` (a login without privileges of its own that starts every session as the
// project's owner role, so RESET ROLE stays the owner) and `read_only` (reads every table, RLS
// bypassed, owns nothing and may write nothing). Made on first use, for old projects too,
// through the door; the migration history is handed to the owner then (branches made before
// their replays ran as the owner had it owned by the platform).
import { randomBytes } from "node:crypto";
import type { SuperuserDoor } from "../door/superuserDoor";
import type { Sql } from "../platform/sql";
import { projectNames } from "./projectNames";
import type { ProjectServers } from "../servers/projectServers";
import { scramVerifier } from "./scramVerifier";
import type { ProjectRecord } from "./projectStore";
import { withProjectSession, type ProjectSession } from "./projectSession";

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

export interface LoginOptions {
  /** Another database of the project than its own (a restore's new database). */
  database?: string;
}

export class ProjectLogins {
  private readonly made = new Map<string, Promise<LoginRow>>();

  constructor(
    private readonly platform: Sql,
    private readonly servers: ProjectServers,
    private readonly door: SuperuserDoor,
  ) {}

  /** The URL and startup options of a connection to the project's database with this access. */
  async login(project: ProjectRecord, access: ProjectAccess, statementTimeoutMs: number, options: LoginOptions = {}): Promise<ProjectLogin> {
    const row = await this.ensure(project);
    const database = options.database ?? project.database_name;
    const timeout = `-c statement_timeout=${statementTimeoutMs} -c idle_in_transaction_session_timeout=${Math.max(statementTimeoutMs, 60_000)}`;
    switch (access) {
      case "owner":
        return { url: this.servers.loginUrl(project.server, database, row.owner_login, row.owner_password), options: `-c role=${project.owner_role} ${timeout}` };
      case "read_only":
        return { url: this.servers.loginUrl(project.server, database, row.read_only_login, row.read_only_password), options: `-c default_transaction_read_only=on ${timeout}` };
      default: {
        const never: never = access;
        throw new Error(`unknown access ${String(never)}`);
      }
    }
  }

  /** Runs `work` on a new session of the login (see withProjectSession). */
  async run<T>(project: ProjectRecord, access: ProjectAccess, timeoutMs: number, work: (session: ProjectSession) => Promise<T>, options: LoginOptions = {}): Promise<T> {
    return withProjectSession(await this.login(project, access, timeoutMs, options), timeoutMs, work);
  }

  /** Makes the logins match again on next use (after their database was replaced). */
  forget(ref: string): void {
    this.made.delete(ref);
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
    const server = this.door.server(project.server);
    await server.roles.ensurePlatformLogins({
      owner: project.owner_role,
      ownerLogin: row.owner_login,
      ownerLoginVerifier: scramVerifier(row.owner_password),
      readOnly: row.read_only_login,
      readOnlyVerifier: scramVerifier(row.read_only_password),
      database: project.database_name,
    });
    await server.inside.handHistoryTo(project.database_name, project.owner_role);
    return row;
  }
}

// Settings stage: just-in-time role access. Members of a project's organization are granted
// project roles until a time, from given networks. Authorizing one (POST with the client's
// address) makes the member's login role `<ref>_jit_<user>` take that role until the grant ends,
// with the caller's access token as its password (SCRAM); the sweep revokes grants past their
// time and drops login roles left with none. The networks are checked at authorization only.
import { isIP } from "node:net";
import type { SuperuserDoor } from "../door/superuserDoor";
import { invalid } from "../errors/domainError";
import type { SqlPool } from "../platform/sql";
import { projectNames } from "../tenants/projectNames";
import { scramVerifier } from "../tenants/scramVerifier";
import type { ProjectRecord } from "../tenants/projectStore";
import { checkCidrs, networkFilter, type AllowedNetworks } from "./networkRestrictions";

interface Cidr {
  cidr: string;
}

export interface JitRole {
  role: string;
  expires_at?: number;
  allowed_networks?: { allowed_cidrs?: Cidr[]; allowed_cidrs_v6?: Cidr[] };
}

interface GrantRow {
  user_id: string;
  role: string;
  expires_at: number | null;
  allowed_v4: string[];
  allowed_v6: string[];
}

/** The roles a grant may name: the project's own and the API roles ("postgres" is the owner). */
function projectRole(project: ProjectRecord, role: string): string {
  if (role === "postgres") return project.owner_role;
  if ([project.owner_role, "anon", "authenticated", "service_role"].includes(role)) return role;
  throw invalid(`Role ${role} cannot be granted on project ${project.ref}: use postgres, anon, authenticated or service_role`);
}

function shape(row: GrantRow): JitRole {
  return {
    role: row.role,
    ...(row.expires_at !== null ? { expires_at: row.expires_at } : {}),
    allowed_networks: { allowed_cidrs: row.allowed_v4.map((cidr) => ({ cidr })), allowed_cidrs_v6: row.allowed_v6.map((cidr) => ({ cidr })) },
  };
}

export const jitLoginRole = (ref: string, userId: string) => `${ref}_jit_${userId.replace(/-/g, "").slice(0, 16)}`;

export class JitAccess {
  constructor(
    private readonly platform: SqlPool,
    private readonly door: SuperuserDoor,
    private readonly now: () => number,
    /** Sessions a member's login may hold. */
    private readonly connectionLimit: number,
  ) {}

  async enabled(ref: string): Promise<boolean> {
    return (await this.platform.one<{ on: boolean }>("select enabled as on from platform.jit_state where ref = $1", [ref]))?.on ?? false;
  }

  async setEnabled(ref: string, on: boolean): Promise<void> {
    await this.platform.rows("insert into platform.jit_state (ref, enabled) values ($1, $2) on conflict (ref) do update set enabled = excluded.enabled", [ref, on]);
  }

  async list(ref: string): Promise<Array<{ user_id: string; user_roles: JitRole[] }>> {
    const rows = await this.platform.rows<GrantRow>(
      "select user_id::text, role, expires_at, allowed_v4, allowed_v6 from platform.jit_grants where ref = $1 order by user_id, role",
      [ref],
    );
    const byUser = new Map<string, JitRole[]>();
    for (const r of rows) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), shape(r)]);
    return [...byUser].map(([user_id, user_roles]) => ({ user_id, user_roles }));
  }

  /** Replaces a member's grants on the project (CIDRs checked by PostgreSQL). */
  async replace(project: ProjectRecord, userId: string, roles: JitRole[]): Promise<void> {
    const member = await this.platform.one(
      "select 1 from platform.organization_members where organization_slug = $1 and user_id::text = $2",
      [project.organization_slug, userId],
    );
    if (!member) throw invalid(`User ${userId} is not a member of the project's organization`);
    const checked: Array<JitRole & AllowedNetworks> = [];
    for (const r of roles) {
      projectRole(project, r.role);
      const networks = checkCidrs({
        v4: (r.allowed_networks?.allowed_cidrs ?? []).map((c) => c.cidr),
        v6: (r.allowed_networks?.allowed_cidrs_v6 ?? []).map((c) => c.cidr),
      });
      checked.push({ ...r, ...networks });
    }
    await this.revokeAll(project, userId);
    await this.platform.transaction(async (tx) => {
      for (const r of checked) {
        await tx.rows("insert into platform.jit_grants (ref, user_id, role, expires_at, allowed_v4, allowed_v6) values ($1, $2, $3, $4, $5, $6)", [
          project.ref,
          userId,
          r.role,
          r.expires_at ?? null,
          r.v4,
          r.v6,
        ]);
      }
    });
  }

  /** The caller takes a granted role now, from `rhost`: its login role gets the role. */
  async authorize(project: ProjectRecord, userId: string, token: string, role: string, rhost: string): Promise<JitRole> {
    if (!(await this.enabled(project.ref))) throw invalid(`Just-in-time access is disabled for project ${project.ref}: enable it with PUT /v1/projects/${project.ref}/jit-access`);
    if (isIP(rhost) === 0) throw invalid(`rhost must be an IP address, got "${rhost}"`);
    const grant = await this.platform.one<GrantRow>(
      "select user_id::text, role, expires_at, allowed_v4, allowed_v6 from platform.jit_grants where ref = $1 and user_id = $2 and role = $3",
      [project.ref, userId, role],
    );
    const nowSeconds = this.now() / 1000;
    if (!grant || (grant.expires_at !== null && grant.expires_at <= nowSeconds)) {
      throw invalid(`You have no current just-in-time grant of role ${role} on project ${project.ref}`);
    }
    if (!networkFilter({ v4: grant.allowed_v4, v6: grant.allowed_v6 })(rhost)) {
      throw invalid(`${rhost} is not in the networks allowed for role ${role}`);
    }
    const login = jitLoginRole(project.ref, userId);
    const until = grant.expires_at === null ? "infinity" : new Date(grant.expires_at * 1000).toISOString();
    await this.door.server(project.server).roles.upsertJitLogin(
      { role: login, verifier: scramVerifier(token), validUntil: until, database: project.database_name, connectionLimit: this.connectionLimit },
      projectRole(project, role),
    );
    return shape(grant);
  }

  /** Removes every grant of the member on the project and its login role. */
  async revokeAll(project: ProjectRecord, userId: string): Promise<void> {
    await this.platform.rows("delete from platform.jit_grants where ref = $1 and user_id = $2", [project.ref, userId]);
    await this.dropLoginRole(project.server, project.ref, jitLoginRole(project.ref, userId));
  }

  /** Revokes grants past their time: the login role loses the role (dropped when none is left). */
  async revokeExpired(projects: ProjectRecord[]): Promise<void> {
    for (const project of projects) {
      const expired = await this.platform.rows<GrantRow>(
        "delete from platform.jit_grants where ref = $1 and expires_at <= $2 returning user_id::text, role, expires_at, allowed_v4, allowed_v6",
        [project.ref, this.now() / 1000],
      );
      for (const grant of expired) {
        const login = jitLoginRole(project.ref, grant.user_id);
        const left = await this.platform.one("select 1 from platform.jit_grants where ref = $1 and user_id = $2", [project.ref, grant.user_id]);
        if (!left) {
          await this.dropLoginRole(project.server, project.ref, login);
          continue;
        }
        await this.door.server(project.server).roles.revokeMembership(projectRole(project, grant.role), login);
      }
    }
  }

  private async dropLoginRole(server: string, database: string, login: string): Promise<void> {
    await this.door.server(server).roles.dropLogin(login, database, projectNames(database).owner);
  }
}

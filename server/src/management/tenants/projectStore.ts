// Platform store: project records (where each project's database lives, its roles and JWT
// secret, its status). Reads on behalf of a user only see their organizations' projects.
import type { Sql } from "../platform/sql";
import { isoText } from "../platform/isoColumn";

export const projectStatuses = ["COMING_UP", "ACTIVE_HEALTHY", "INACTIVE", "GOING_DOWN"] as const;
export type ProjectStatus = (typeof projectStatuses)[number];

export interface ProjectRecord {
  id: number;
  ref: string;
  organization_slug: string;
  name: string;
  region: string;
  status: ProjectStatus;
  server: string;
  database_name: string;
  owner_role: string;
  authenticator_role: string;
  authenticator_password: string;
  jwt_secret: string;
  created_at: string;
}

export type NewProject = Omit<ProjectRecord, "id" | "created_at" | "status">;

export interface OrganizationProjectsQuery {
  offset: number;
  limit: number;
  search: string | undefined;
  sort: "name_asc" | "name_desc" | "created_asc" | "created_desc";
  statuses: string[] | undefined;
}

const columns = `p.id::int as id, p.ref, p.organization_slug, p.name, p.region, p.status, p.server, p.database_name,
  p.owner_role, p.authenticator_role, p.authenticator_password, p.jwt_secret,
  ${isoText("p.created_at")} as created_at`;

const visibleTo = `exists (select 1 from platform.organization_members m
  where m.organization_slug = p.organization_slug and m.user_id = $1)`;

const orderings: Record<OrganizationProjectsQuery["sort"], string> = {
  name_asc: "p.name asc, p.ref",
  name_desc: "p.name desc, p.ref",
  created_asc: "p.created_at asc, p.ref",
  created_desc: "p.created_at desc, p.ref",
};

export class ProjectStore {
  constructor(private readonly sql: Sql) {}

  async insert(project: NewProject): Promise<ProjectRecord> {
    const row = await this.sql.one<ProjectRecord>(
      `insert into platform.projects as p (ref, organization_slug, name, region, status, server, database_name,
         owner_role, authenticator_role, authenticator_password, jwt_secret)
       values ($1, $2, $3, $4, 'COMING_UP', $5, $6, $7, $8, $9, $10) returning ${columns}`,
      [
        project.ref,
        project.organization_slug,
        project.name,
        project.region,
        project.server,
        project.database_name,
        project.owner_role,
        project.authenticator_role,
        project.authenticator_password,
        project.jwt_secret,
      ],
    );
    return row!;
  }

  /** Any project by ref, whoever asks (for the data API and the provisioner). */
  async byRef(ref: string): Promise<ProjectRecord | undefined> {
    return this.sql.one<ProjectRecord>(`select ${columns} from platform.projects p where p.ref = $1`, [ref]);
  }

  async forUser(userId: string, ref: string): Promise<ProjectRecord | undefined> {
    return this.sql.one<ProjectRecord>(`select ${columns} from platform.projects p where p.ref = $2 and ${visibleTo}`, [userId, ref]);
  }

  async listForUser(userId: string): Promise<ProjectRecord[]> {
    return this.sql.rows<ProjectRecord>(
      `select ${columns} from platform.projects p where ${visibleTo} order by p.created_at, p.ref`,
      [userId],
    );
  }

  async listForOrganization(slug: string, q: OrganizationProjectsQuery): Promise<{ rows: ProjectRecord[]; count: number }> {
    const where = `p.organization_slug = $1 and ($2::text is null or p.name ilike '%' || $2 || '%')
      and ($3::text[] is null or p.status = any($3))`;
    const params = [slug, q.search ?? null, q.statuses ?? null];
    const rows = await this.sql.rows<ProjectRecord>(
      `select ${columns} from platform.projects p where ${where} order by ${orderings[q.sort]} offset $4 limit $5`,
      [...params, q.offset, q.limit],
    );
    const total = await this.sql.one<{ count: number }>(`select count(*)::int as count from platform.projects p where ${where}`, params);
    return { rows, count: total!.count };
  }

  async withStatus(statuses: ProjectStatus[]): Promise<ProjectRecord[]> {
    return this.sql.rows<ProjectRecord>(`select ${columns} from platform.projects p where p.status = any($1) order by p.id`, [statuses]);
  }

  async setStatus(ref: string, status: ProjectStatus): Promise<void> {
    await this.sql.rows("update platform.projects set status = $2, updated_at = now() where ref = $1", [ref, status]);
  }

  async rename(ref: string, name: string): Promise<void> {
    await this.sql.rows("update platform.projects set name = $2, updated_at = now() where ref = $1", [ref, name]);
  }

  async remove(ref: string): Promise<void> {
    await this.sql.rows("delete from platform.projects where ref = $1", [ref]);
  }

  /** Projects per server key, for placing a new project on the least used server. */
  async countByServer(): Promise<Map<string, number>> {
    const rows = await this.sql.rows<{ server: string; count: number }>(
      "select server, count(*)::int as count from platform.projects group by server",
    );
    return new Map(rows.map((r) => [r.server, r.count]));
  }
}

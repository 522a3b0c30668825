// Platform store: organizations and their members. Every read is scoped to a user: an
// organization the user is not a member of reads as absent.
import { randomRef } from "../platform/randomRef";
import type { Sql, SqlPool } from "../platform/sql";
import type { components } from "../openapi/managementApi.generated";

/** The plans of the Management API document; every organization here is on `free`. */
export type OrganizationPlan = NonNullable<components["schemas"]["V1OrganizationSlugResponse"]["plan"]>;

export interface Organization {
  slug: string;
  name: string;
  plan: OrganizationPlan;
}

export interface Member {
  user_id: string;
  user_name: string;
  email: string;
  role_name: string;
}

export class OrganizationStore {
  constructor(private readonly db: SqlPool) {}

  /** Creates the organization with `userId` as its owner. */
  async create(userId: string, name: string): Promise<Organization> {
    return this.db.transaction(async (tx) => {
      const org = await tx.one<Organization>(
        "insert into platform.organizations (slug, name) values ($1, $2) returning slug, name, plan",
        [randomRef(), name],
      );
      await tx.rows("insert into platform.organization_members (organization_slug, user_id, role_name) values ($1, $2, 'Owner')", [
        org!.slug,
        userId,
      ]);
      return org!;
    });
  }

  async list(userId: string): Promise<Organization[]> {
    return this.db.rows<Organization>(
      `select o.slug, o.name, o.plan from platform.organizations o
         join platform.organization_members m on m.organization_slug = o.slug
        where m.user_id = $1 order by o.created_at, o.slug`,
      [userId],
    );
  }

  async get(userId: string, slug: string, sql: Sql = this.db): Promise<Organization | undefined> {
    return sql.one<Organization>(
      `select o.slug, o.name, o.plan from platform.organizations o
         join platform.organization_members m on m.organization_slug = o.slug
        where m.user_id = $1 and o.slug = $2`,
      [userId, slug],
    );
  }

  async members(slug: string): Promise<Member[]> {
    return this.db.rows<Member>(
      `select u.id::text as user_id, u.username as user_name, u.email, m.role_name
         from platform.organization_members m join platform.users u on u.id = m.user_id
        where m.organization_slug = $1 order by m.created_at, u.email`,
      [slug],
    );
  }
}

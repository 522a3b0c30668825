// Platform store: a project's claim token. No token → created (shown once, stored as its hash)
// → revoked, expired or used to move the project to another organization (then no token again);
// a second one is refused while one is live.
import { randomBytes } from "node:crypto";
import type { Sql, SqlPool } from "../platform/sql";
import { tokenHash } from "../users/accessToken";
import { isoColumn } from "../platform/isoColumn";

export interface ClaimToken {
  token_alias: string;
  created_at: string;
  expires_at: string;
  created_by: string;
}

/** A live token as its claimant sees it: the project it would move and where it is now. */
export interface ClaimableProject extends ClaimToken {
  ref: string;
  name: string;
  organization_slug: string;
  source_plan: string;
}

export type ClaimOutcome = { kind: "moved" } | { kind: "unknown" } | { kind: "same_organization" };

const lifetimeHours = 24;
const columns = `token_alias, ${isoColumn("created_at")}, ${isoColumn("expires_at")}, created_by::text`;
const claimable = `select ct.token_alias, ${isoColumn("ct.created_at", "created_at")}, ${isoColumn("ct.expires_at", "expires_at")},
    ct.created_by::text, p.ref, p.name, p.organization_slug, o.plan as source_plan
  from platform.claim_tokens ct
  join platform.projects p on p.ref = ct.project_ref
  join platform.organizations o on o.slug = p.organization_slug
 where ct.token_hash = $1 and ct.expires_at > now() and p.status <> 'GOING_DOWN'`;

export class ClaimTokenStore {
  constructor(private readonly sql: Sql) {}

  /** The project a live token would move, if the token is live. */
  async claimable(token: string): Promise<ClaimableProject | undefined> {
    return this.sql.one<ClaimableProject>(claimable, [tokenHash(token)]);
  }

  /** Moves the token's project, with its branches, to `slug` and spends the token, atomically. */
  static async claim(db: SqlPool, token: string, slug: string): Promise<ClaimOutcome> {
    return db.transaction(async (tx) => {
      const found = await tx.one<ClaimableProject>(`${claimable} for update of ct`, [tokenHash(token)]);
      if (!found) return { kind: "unknown" };
      if (found.organization_slug === slug) return { kind: "same_organization" };
      await tx.rows(
        `update platform.projects set organization_slug = $2, updated_at = now()
          where ref = $1 or ref in (select branch_ref from platform.branches where parent_ref = $1)`,
        [found.ref, slug],
      );
      await tx.rows("delete from platform.claim_tokens where project_ref = $1", [found.ref]);
      return { kind: "moved" };
    });
  }

  /** The live (unexpired) token of a project, if any. */
  async get(ref: string): Promise<ClaimToken | undefined> {
    return this.sql.one<ClaimToken>(`select ${columns} from platform.claim_tokens where project_ref = $1 and expires_at > now()`, [ref]);
  }

  /** A new token, or undefined when a live one exists; an expired one is replaced. */
  async create(ref: string, userId: string): Promise<(ClaimToken & { token: string }) | undefined> {
    const token = `cl_${randomBytes(24).toString("hex")}`;
    const row = await this.sql.one<ClaimToken>(
      `insert into platform.claim_tokens (project_ref, token_hash, token_alias, created_by, expires_at)
       values ($1, $2, $3, $4, now() + make_interval(hours => $5))
       on conflict (project_ref) do update
          set token_hash = excluded.token_hash, token_alias = excluded.token_alias, created_by = excluded.created_by,
              created_at = now(), expires_at = excluded.expires_at
        where claim_tokens.expires_at <= now()
       returning ${columns}`,
      [ref, tokenHash(token), `${token.slice(0, 7)}…${token.slice(-4)}`, userId, lifetimeHours],
    );
    return row && { ...row, token };
  }

  async revoke(ref: string): Promise<boolean> {
    return (await this.sql.rows("delete from platform.claim_tokens where project_ref = $1 and expires_at > now() returning 1", [ref])).length > 0;
  }
}

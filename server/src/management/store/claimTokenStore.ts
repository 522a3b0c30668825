// Platform store: a project's claim token. No token → created (shown once, stored as its hash)
// → revoked or expired (then no token again); a second one is refused while one is live.
import { randomBytes } from "node:crypto";
import type { Sql } from "../platform/sql";
import { tokenHash } from "./accessToken";
import { isoColumn } from "./isoColumn";

export interface ClaimToken {
  token_alias: string;
  created_at: string;
  expires_at: string;
  created_by: string;
}

const lifetimeHours = 24;
const columns = `token_alias, ${isoColumn("created_at")}, ${isoColumn("expires_at")}, created_by::text`;

export class ClaimTokenStore {
  constructor(private readonly sql: Sql) {}

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

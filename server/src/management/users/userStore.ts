// Platform store: users and their personal access tokens (created, listed, revoked, and the
// token of a request → its user).
import type { Sql } from "../platform/sql";
import { newAccessToken, tokenHash } from "./accessToken";

export interface User {
  id: string;
  email: string;
  username: string;
}

export interface TokenInfo {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export class UserStore {
  constructor(private readonly sql: Sql) {}

  /** The user of a live (not revoked) token, or undefined. */
  async byToken(token: string): Promise<User | undefined> {
    return this.sql.one<User>(
      `update platform.access_tokens t set last_used_at = now()
         from platform.users u
        where t.token_hash = $1 and t.revoked_at is null and u.id = t.user_id
       returning u.id::text, u.email, u.username`,
      [tokenHash(token)],
    );
  }

  async ensureUser(email: string): Promise<User> {
    const row = await this.sql.one<User>(
      `insert into platform.users (email, username) values ($1, split_part($1, '@', 1))
       on conflict (email) do update set email = excluded.email
       returning id::text, email, username`,
      [email],
    );
    return row!;
  }

  async byEmail(email: string): Promise<User | undefined> {
    return this.sql.one<User>("select id::text, email, username from platform.users where email = $1", [email]);
  }

  /** Creates the user when needed and a token for it; the token is returned once. */
  async createToken(email: string, name: string): Promise<{ user: User; token: string; id: string }> {
    const user = await this.ensureUser(email);
    const token = newAccessToken();
    const row = await this.sql.one<{ id: string }>(
      "insert into platform.access_tokens (user_id, token_hash, name) values ($1, $2, $3) returning id::text",
      [user.id, tokenHash(token), name],
    );
    return { user, token, id: row!.id };
  }

  async listTokens(userId: string): Promise<TokenInfo[]> {
    return this.sql.rows<TokenInfo>(
      `select id::text, name, created_at::text, last_used_at::text, revoked_at::text
         from platform.access_tokens where user_id = $1 order by created_at, id`,
      [userId],
    );
  }

  /** Revokes a token by id; false when there is no live token with that id. */
  async revokeToken(id: string): Promise<boolean> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
    const row = await this.sql.one(
      "update platform.access_tokens set revoked_at = now() where id = $1 and revoked_at is null returning id",
      [id],
    );
    return row !== undefined;
  }
}

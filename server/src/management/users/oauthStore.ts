// OAuth stage (Management API): the platform's OAuth rows → typed apps, codes, tokens and
// consent sessions. Secrets are random, shown once, and stored only as their sha-256.
import { randomBytes } from "node:crypto";
import type { Sql } from "../platform/sql";
import { tokenHash } from "./accessToken";

export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(20).toString("hex")}`;
}

export interface OAuthApp {
  client_id: string;
  organization_slug: string;
  name: string;
  redirect_uris: string[];
  scopes: string[];
}

export interface StoredCode {
  client_id: string;
  user_id: string;
  organization_slug: string;
  scopes: string[];
  redirect_uri: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: Date;
}

export interface StoredToken {
  id: string;
  client_id: string;
  user_id: string;
  organization_slug: string;
  scopes: string[];
  access_expires_at: Date;
  refresh_expires_at: Date;
}

export interface NewToken {
  clientId: string;
  userId: string;
  organizationSlug: string;
  scopes: string[];
  accessToken: string;
  accessExpiresAt: Date;
  refreshToken: string;
  refreshExpiresAt: Date;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const appColumns = "client_id::text, organization_slug, name, redirect_uris, scopes";
const tokenColumns = "id::text, client_id::text, user_id::text, organization_slug, scopes, access_expires_at, refresh_expires_at";

export class OAuthStore {
  constructor(private readonly sql: Sql) {}

  async createApp(organizationSlug: string, name: string, redirectUris: string[], scopes: string[]): Promise<{ app: OAuthApp; secret: string }> {
    const secret = newSecret("sba_");
    const app = await this.sql.one<OAuthApp>(
      `insert into platform.oauth_apps (organization_slug, name, client_secret_hash, redirect_uris, scopes)
       values ($1, $2, $3, $4, $5) returning ${appColumns}`,
      [organizationSlug, name, tokenHash(secret), redirectUris, scopes],
    );
    return { app: app!, secret };
  }

  /** The app of a client id, checking the secret when one is given. */
  async app(clientId: string, secret?: string | null): Promise<OAuthApp | undefined> {
    if (!uuidPattern.test(clientId)) return undefined;
    const app = await this.sql.one<OAuthApp & { client_secret_hash: string }>(
      `select ${appColumns}, client_secret_hash from platform.oauth_apps where client_id = $1`,
      [clientId],
    );
    if (!app || (secret != null && app.client_secret_hash !== tokenHash(secret))) return undefined;
    const { client_secret_hash: _hash, ...rest } = app;
    return rest;
  }

  async saveCode(code: string, row: StoredCode): Promise<void> {
    await this.sql.rows(
      `insert into platform.oauth_codes (code_hash, client_id, user_id, organization_slug, scopes, redirect_uri,
         code_challenge, code_challenge_method, expires_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [tokenHash(code), row.client_id, row.user_id, row.organization_slug, row.scopes, row.redirect_uri, row.code_challenge, row.code_challenge_method, row.expires_at],
    );
  }

  async code(code: string): Promise<StoredCode | undefined> {
    return this.sql.one<StoredCode>(
      `select client_id::text, user_id::text, organization_slug, scopes, redirect_uri, code_challenge,
              code_challenge_method, expires_at from platform.oauth_codes where code_hash = $1`,
      [tokenHash(code)],
    );
  }

  /** A code is used once: true when this call removed it. */
  async consumeCode(code: string): Promise<boolean> {
    return (await this.sql.one("delete from platform.oauth_codes where code_hash = $1 returning 1", [tokenHash(code)])) !== undefined;
  }

  async saveToken(token: NewToken): Promise<void> {
    await this.sql.rows(
      `insert into platform.oauth_tokens (client_id, user_id, organization_slug, scopes, access_token_hash,
         access_expires_at, refresh_token_hash, refresh_expires_at) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [token.clientId, token.userId, token.organizationSlug, token.scopes, tokenHash(token.accessToken), token.accessExpiresAt, tokenHash(token.refreshToken), token.refreshExpiresAt],
    );
  }

  /** The live (not revoked) token with this access token; expiry is the caller's check. */
  async byAccessToken(accessToken: string): Promise<StoredToken | undefined> {
    return this.sql.one<StoredToken>(
      `select ${tokenColumns} from platform.oauth_tokens where access_token_hash = $1 and revoked_at is null`,
      [tokenHash(accessToken)],
    );
  }

  async byRefreshToken(refreshToken: string): Promise<StoredToken | undefined> {
    return this.sql.one<StoredToken>(
      `select ${tokenColumns} from platform.oauth_tokens where refresh_token_hash = $1 and revoked_at is null`,
      [tokenHash(refreshToken)],
    );
  }

  async revokeToken(id: string): Promise<boolean> {
    return (await this.sql.one("update platform.oauth_tokens set revoked_at = now() where id = $1 and revoked_at is null returning 1", [id])) !== undefined;
  }

  /** Revokes every token the app holds for the user of this refresh token (the app's authorization). */
  async revokeAuthorization(clientId: string, refreshToken: string): Promise<boolean> {
    const rows = await this.sql.rows(
      `update platform.oauth_tokens t set revoked_at = now()
         from platform.oauth_tokens r
        where r.refresh_token_hash = $2 and r.client_id = $1 and t.client_id = r.client_id
          and t.user_id = r.user_id and t.revoked_at is null
       returning 1`,
      [clientId, tokenHash(refreshToken)],
    );
    return rows.length > 0;
  }

  async createSession(userId: string, expiresAt: Date): Promise<string> {
    const id = newSecret("sbs_");
    await this.sql.rows("insert into platform.oauth_sessions (id_hash, user_id, expires_at) values ($1, $2, $3)", [tokenHash(id), userId, expiresAt]);
    return id;
  }

  async sessionUser(id: string, now: Date): Promise<string | undefined> {
    const row = await this.sql.one<{ user_id: string }>(
      "select user_id::text from platform.oauth_sessions where id_hash = $1 and expires_at > $2",
      [tokenHash(id), now],
    );
    return row?.user_id;
  }
}

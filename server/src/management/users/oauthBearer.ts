// Auth stage (Management API): an OAuth access token on an API request → its user and grant,
// or the refusal (unknown, revoked, expired, or lacking the scope the operation names in the
// OpenAPI document's `x-oauth-scope`).
import type { OpenApiDocument } from "../openapi/managementDocument";
import type { User } from "./userStore";
import type { Sql } from "../platform/sql";
import type { OAuthStore } from "./oauthStore";

/** What an OAuth access token allows: one organization, some scopes (absent for a PAT). */
export interface OAuthGrant {
  organizationSlug: string;
  scopes: string[];
}

export type OAuthCaller = { kind: "ok"; user: User; grant: OAuthGrant } | { kind: "refused"; status: number; message: string };

/** `METHOD /fastify/:route` → the scope its operation needs (absent: no OAuth token may call it). */
export function operationScopes(document: OpenApiDocument): Map<string, string> {
  const scopes = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const scope = (operation as { "x-oauth-scope"?: unknown })["x-oauth-scope"];
      if (typeof scope === "string") scopes.set(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`, scope);
    }
  }
  return scopes;
}

export async function oauthCaller(
  store: OAuthStore,
  sql: Sql,
  token: string,
  now: number,
  neededScope: string | undefined,
): Promise<OAuthCaller> {
  const row = await store.byAccessToken(token);
  if (!row) return { kind: "refused", status: 401, message: "Invalid access token: it is unknown or revoked" };
  if (row.access_expires_at.getTime() <= now) {
    return { kind: "refused", status: 401, message: "The OAuth access token has expired: use the refresh token for a new one" };
  }
  if (neededScope === undefined) {
    return { kind: "refused", status: 403, message: "This operation takes a personal access token, not an OAuth access token" };
  }
  if (!row.scopes.includes(neededScope)) {
    return { kind: "refused", status: 403, message: `The OAuth access token lacks the scope this operation needs: ${neededScope}` };
  }
  const user = await sql.one<User>("select id::text, email, username from platform.users where id = $1", [row.user_id]);
  if (!user) return { kind: "refused", status: 401, message: "Invalid access token: it is unknown or revoked" };
  return { kind: "ok", user, grant: { organizationSlug: row.organization_slug, scopes: row.scopes } };
}

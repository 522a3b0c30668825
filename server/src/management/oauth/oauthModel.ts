// OAuth stage (Management API): the OAuth 2.0 server library's storage model over the platform's
// OAuth rows. The library runs the protocol (PKCE, redirect checks, grants); this only stores.
import type OAuth2Server from "@node-oauth/oauth2-server";
import { newSecret, type OAuthStore } from "../users/oauthStore";

/** The resource owner of an authorization: a user acting on one organization. */
export interface GrantingUser {
  id: string;
  organizationSlug: string;
}

const grants = ["authorization_code", "refresh_token"];

function client(app: { client_id: string; redirect_uris: string[] }): OAuth2Server.Client {
  return { id: app.client_id, redirectUris: app.redirect_uris, grants };
}

export function oauthModel(store: OAuthStore): OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel {
  return {
    async getClient(clientId, clientSecret) {
      const app = await store.app(clientId, clientSecret);
      return app ? client(app) : false;
    },
    async validateScope(_user, oauthClient, scope) {
      const app = await store.app(oauthClient.id);
      if (!app) return false;
      if (!scope || scope.length === 0) return app.scopes;
      return scope.every((s) => app.scopes.includes(s)) ? scope : false;
    },
    async generateAccessToken() {
      return newSecret("sbp_oauth_");
    },
    async generateRefreshToken() {
      return newSecret("sbr_");
    },
    async generateAuthorizationCode() {
      return newSecret("sbc_");
    },
    async saveAuthorizationCode(code, oauthClient, user) {
      const owner = user as GrantingUser;
      await store.saveCode(code.authorizationCode, {
        client_id: oauthClient.id,
        user_id: owner.id,
        organization_slug: owner.organizationSlug,
        scopes: code.scope ?? [],
        redirect_uri: code.redirectUri,
        code_challenge: code.codeChallenge ?? null,
        code_challenge_method: code.codeChallengeMethod ?? null,
        expires_at: code.expiresAt,
      });
      return { ...code, client: oauthClient, user };
    },
    async getAuthorizationCode(authorizationCode) {
      const row = await store.code(authorizationCode);
      if (!row) return false;
      return {
        authorizationCode,
        expiresAt: row.expires_at,
        redirectUri: row.redirect_uri,
        scope: row.scopes,
        client: { id: row.client_id, grants },
        user: { id: row.user_id, organizationSlug: row.organization_slug } satisfies GrantingUser,
        ...(row.code_challenge ? { codeChallenge: row.code_challenge, codeChallengeMethod: row.code_challenge_method ?? "plain" } : {}),
      };
    },
    async revokeAuthorizationCode(code) {
      return store.consumeCode(code.authorizationCode);
    },
    async saveToken(token, oauthClient, user) {
      const owner = user as GrantingUser;
      await store.saveToken({
        clientId: oauthClient.id,
        userId: owner.id,
        organizationSlug: owner.organizationSlug,
        scopes: token.scope ?? [],
        accessToken: token.accessToken,
        accessExpiresAt: token.accessTokenExpiresAt!,
        refreshToken: token.refreshToken!,
        refreshExpiresAt: token.refreshTokenExpiresAt!,
      });
      return { ...token, client: oauthClient, user };
    },
    async getRefreshToken(refreshToken) {
      const row = await store.byRefreshToken(refreshToken);
      if (!row) return false;
      return {
        refreshToken,
        refreshTokenExpiresAt: row.refresh_expires_at,
        scope: row.scopes,
        client: { id: row.client_id, grants },
        user: { id: row.user_id, organizationSlug: row.organization_slug, tokenId: row.id },
      };
    },
    async revokeToken(token) {
      return store.revokeToken((token.user as { tokenId: string }).tokenId);
    },
    // Bearer checks on the API go through the platform's own authenticator (with its clock).
    async getAccessToken() {
      return false;
    },
  };
}

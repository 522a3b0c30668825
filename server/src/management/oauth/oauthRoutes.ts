// HTTP stage (Management API): the OAuth 2.0 endpoints for third-party apps: the authorize
// consent flow (sign in with a personal access token → session cookie, or a Bearer header for
// scripted clients; approve an organization → 302 to the app with code and state), the token
// endpoint (authorization_code with PKCE S256, refresh_token) and revocation. The protocol is
// @node-oauth/oauth2-server's; this module adapts fastify requests to it.
import cookie from "@fastify/cookie";
import formbody from "@fastify/formbody";
import OAuth2Server, { OAuthError, Request as OAuthRequest, Response as OAuthResponse } from "@node-oauth/oauth2-server";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Services } from "../services";
import { bearerToken } from "../users/accessToken";
import { consentPage, errorPage, signInPage } from "./consentPage";
import { oauthModel, type GrantingUser } from "./oauthModel";
import { OAuthStore, type OAuthApp } from "../users/oauthStore";

export interface OAuthSettings {
  accessTokenLifetimeSeconds: number;
  refreshTokenLifetimeSeconds: number;
}

export const defaultOAuthSettings: OAuthSettings = { accessTokenLifetimeSeconds: 3600, refreshTokenLifetimeSeconds: 30 * 24 * 3600 };

const sessionCookie = "sb_oauth_session";
const sessionSeconds = 3600;
// The consent page only posts these back; anything else in the query is dropped.
const authorizeParams = ["client_id", "response_type", "redirect_uri", "scope", "state", "response_mode", "code_challenge", "code_challenge_method"];

type Checked = { kind: "ok"; app: OAuthApp; params: Record<string, string> } | { kind: "refused"; message: string };

/** Refusals shown on a page, not redirected: the redirect URI is not trusted until it matches. */
async function checkAuthorizeRequest(store: OAuthStore, input: Record<string, unknown>): Promise<Checked> {
  const params: Record<string, string> = {};
  for (const name of authorizeParams) if (typeof input[name] === "string") params[name] = input[name] as string;
  const app = params.client_id === undefined ? undefined : await store.app(params.client_id);
  if (!app) return { kind: "refused", message: "Unknown client_id: no OAuth app has this client id" };
  if (params.redirect_uri === undefined || !app.redirect_uris.includes(params.redirect_uri)) {
    return { kind: "refused", message: "redirect_uri does not match a redirect URI registered for this app" };
  }
  if (params.response_type !== "code") return { kind: "refused", message: "response_type must be `code`: only the authorization code flow is offered" };
  if (!params.code_challenge || params.code_challenge_method !== "S256") {
    return { kind: "refused", message: "PKCE is required: send code_challenge with code_challenge_method=S256" };
  }
  return { kind: "ok", app, params };
}

function sendOAuthError(reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof OAuthError)) throw error;
  return reply.code(error.code).send({ error: error.name, error_description: error.message, message: error.message });
}

export async function oauthRoutes(fastify: FastifyInstance, options: { services: Services; settings?: OAuthSettings }): Promise<void> {
  const { services } = options;
  const settings = options.settings ?? defaultOAuthSettings;
  const store = services.stores.oauth;
  const server = new OAuth2Server({
    model: oauthModel(store),
    accessTokenLifetime: settings.accessTokenLifetimeSeconds,
    refreshTokenLifetime: settings.refreshTokenLifetimeSeconds,
    allowEmptyState: true,
    requireClientAuthentication: { authorization_code: true, refresh_token: true },
  });
  await fastify.register(cookie);
  await fastify.register(formbody);
  fastify.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, "oauth request failed");
    return reply.code(status).send({ message: status === 500 ? "Internal server error" : error.message });
  });

  /** The signed-in user: a personal access token in a Bearer header, else the session cookie. */
  async function signedInUser(request: FastifyRequest): Promise<{ id: string; scripted: boolean } | undefined> {
    const bearer = bearerToken(request.headers.authorization);
    if (bearer.kind === "token") {
      const user = await services.users.byToken(bearer.token);
      return user && { id: user.id, scripted: true };
    }
    const session = request.cookies[sessionCookie];
    const id = session === undefined ? undefined : await store.sessionUser(session, new Date(services.config.now()));
    return id === undefined ? undefined : { id, scripted: false };
  }

  function html(reply: FastifyReply, status: number, body: string): FastifyReply {
    return reply.code(status).type("text/html; charset=utf-8").header("cache-control", "no-store").send(body);
  }

  async function approve(reply: FastifyReply, params: Record<string, string>, user: GrantingUser, allowed: string): Promise<FastifyReply> {
    const request = new OAuthRequest({ method: "POST", headers: {}, query: { ...params, allowed }, body: {} });
    const response = new OAuthResponse();
    try {
      await server.authorize(request, response, { authenticateHandler: { handle: () => user } });
    } catch (error) {
      if (!(error instanceof OAuthError) || !response.headers?.location) return sendOAuthError(reply, error);
    }
    return reply.code(302).header("location", response.headers!.location).send();
  }

  fastify.get("/v1/oauth/authorize", async (request, reply) => {
    const checked = await checkAuthorizeRequest(store, request.query as Record<string, unknown>);
    if (checked.kind === "refused") return html(reply, 400, errorPage(checked.message));
    const user = await signedInUser(request);
    const query = new URLSearchParams(checked.params).toString();
    if (!user) return html(reply, 200, signInPage(checked.app.name, query));
    const slug = (request.query as Record<string, unknown>)["organization_slug"];
    // Scripted clients approve in one call; a browser session always sees the consent page.
    if (user.scripted && typeof slug === "string") {
      if (!(await services.organizations.get(user.id, slug))) return html(reply, 403, errorPage("You are not a member of that organization"));
      return approve(reply, checked.params, { id: user.id, organizationSlug: slug }, "true");
    }
    const scopes = checked.params.scope ? checked.params.scope.split(/\s+/) : checked.app.scopes;
    return html(reply, 200, consentPage(checked.app.name, scopes, await services.organizations.list(user.id), checked.params));
  });

  // The consent form. The session cookie is SameSite=Strict, so another site cannot post it.
  fastify.post("/v1/oauth/authorize", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const checked = await checkAuthorizeRequest(store, body);
    if (checked.kind === "refused") return html(reply, 400, errorPage(checked.message));
    const user = await signedInUser(request);
    if (!user) return html(reply, 401, errorPage("Sign in first: your session is missing or has expired"));
    const slug = typeof body["organization_slug"] === "string" ? body["organization_slug"] : "";
    const allowed = body["allowed"] === "true" ? "true" : "false";
    if (allowed === "true" && !(await services.organizations.get(user.id, slug))) {
      return html(reply, 403, errorPage("Choose an organization you are a member of"));
    }
    return approve(reply, checked.params, { id: user.id, organizationSlug: slug }, allowed);
  });

  fastify.post("/v1/oauth/authorize/sign-in", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const query = typeof body["authorize_query"] === "string" ? body["authorize_query"] : "";
    const checked = await checkAuthorizeRequest(store, Object.fromEntries(new URLSearchParams(query)));
    if (checked.kind === "refused") return html(reply, 400, errorPage(checked.message));
    const token = typeof body["access_token"] === "string" ? body["access_token"].trim() : "";
    const parsed = bearerToken(`Bearer ${token}`);
    const user = parsed.kind === "token" ? await services.users.byToken(parsed.token) : undefined;
    if (!user) return html(reply, 401, signInPage(checked.app.name, query, "That personal access token is unknown or revoked"));
    const session = await store.createSession(user.id, new Date(services.config.now() + sessionSeconds * 1000));
    reply.setCookie(sessionCookie, session, { path: "/v1/oauth", httpOnly: true, sameSite: "strict", secure: request.protocol === "https", maxAge: sessionSeconds });
    return reply.code(303).header("location", `/v1/oauth/authorize?${query}`).send();
  });

  fastify.post("/v1/oauth/token", async (request, reply) => {
    const oauthRequest = new OAuthRequest({
      method: request.method,
      headers: request.headers as Record<string, string>,
      query: {},
      body: (request.body ?? {}) as Record<string, unknown>,
    });
    try {
      const token = await server.token(oauthRequest, new OAuthResponse());
      return reply.code(201).header("cache-control", "no-store").send({
        access_token: token.accessToken,
        refresh_token: token.refreshToken,
        expires_in: settings.accessTokenLifetimeSeconds,
        token_type: "Bearer",
        scope: (token.scope ?? []).join(" "),
      });
    } catch (error) {
      return sendOAuthError(reply, error);
    }
  });

  fastify.post("/v1/oauth/revoke", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const [clientId, secret, refreshToken] = ["client_id", "client_secret", "refresh_token"].map((k) => body[k]);
    if (typeof clientId !== "string" || typeof secret !== "string" || typeof refreshToken !== "string") {
      return reply.code(400).send({ message: "client_id, client_secret and refresh_token are required strings" });
    }
    if (!(await store.app(clientId, secret))) return reply.code(401).send({ message: "Invalid client: client credentials are invalid" });
    // RFC 7009: an unknown or already revoked token is not an error.
    await store.revokeAuthorization(clientId, refreshToken);
    return reply.code(204).send();
  });
}

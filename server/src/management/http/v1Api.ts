// HTTP stage (Management API): the services → the /v1 routes generated from the OpenAPI document
// (fastify-openapi-glue), each call authenticated by a personal access token, counted against
// its user's rate limit, validated strictly, and answered `{"message": ...}` on refusal.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import openapiGlue from "fastify-openapi-glue";
import { implementedDocument } from "../openapi/managementDocument";
import type { AnyHandler } from "./operation";
import type { OAuthGrant } from "../users/oauthBearer";
import { oauthCaller, operationScopes } from "../users/oauthBearer";
import { OAuthStore } from "../users/oauthStore";
import type { Services } from "../services";
import { bearerToken } from "../users/accessToken";
import type { User } from "../users/userStore";
import { PoolBusyError, sqlState } from "../platform/sql";
import { ServerNotConfiguredError } from "../door/superuserDoor";
import { ApiError, statusOfDomainError } from "./apiError";
import { DomainError } from "../errors/domainError";
import { validatorCompiler } from "./validation";
import { unreachable } from "../../../../src/util/invariant";

export const openapiPath = "/v1/openapi.json";

function fail(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send({ message });
}

interface OAuthContext {
  store: OAuthStore;
  scopes: Map<string, string>;
  grants: WeakMap<FastifyRequest, OAuthGrant>;
}

async function authenticate(services: Services, oauth: OAuthContext, request: FastifyRequest, reply: FastifyReply): Promise<User | undefined> {
  const bearer = bearerToken(request.headers.authorization);
  switch (bearer.kind) {
    case "missing":
      fail(reply, 401, "No access token: send `Authorization: Bearer sbp_...`");
      return undefined;
    case "malformed":
      fail(reply, 401, "The Authorization header must be `Bearer sbp_` followed by 40 hex digits");
      return undefined;
    case "token": {
      const user = await services.users.byToken(bearer.token);
      if (!user) fail(reply, 401, "Invalid access token: it is unknown or revoked");
      return user;
    }
    case "oauth": {
      const scope = oauth.scopes.get(`${request.method} ${request.routeOptions.url}`);
      const caller = await oauthCaller(oauth.store, services.platform, bearer.token, services.config.now(), scope);
      if (caller.kind === "refused") {
        fail(reply, caller.status, caller.message);
        return undefined;
      }
      oauth.grants.set(request, caller.grant);
      return caller.user;
    }
    default:
      return unreachable(bearer, "bearer token");
  }
}

/** Every error a management route can end in → its status and the message the caller sees. */
function describeError(error: FastifyError): { status: number; message: string } {
  if (error instanceof ApiError) return { status: error.statusCode, message: error.message };
  if (error instanceof DomainError) return { status: statusOfDomainError(error.kind), message: error.message };
  if (error instanceof ServerNotConfiguredError) return { status: 503, message: `The project's database server is not available: ${error.message}` };
  if (error instanceof PoolBusyError) return { status: 503, message: `The service is busy; try again later: ${error.message}` };
  const state = sqlState(error);
  const unreachable = (error as { syscall?: unknown }).syscall !== undefined;
  if (unreachable || (state !== undefined && unavailableStates.some((prefix) => state.startsWith(prefix)))) {
    return { status: 503, message: "A database the service depends on is unavailable; try again later" };
  }
  // Fastify's own refusals (validation, body parsing, limits) carry their 4xx.
  if (state === undefined && !unreachable && error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, message: error.message };
  }
  return { status: 500, message: "Internal server error" };
}

// SQLSTATE classes of a database that cannot take work now (connection, shutdown, resources).
const unavailableStates = ["08", "57P", "53"];

export async function v1Api(fastify: FastifyInstance, options: { services: Services; handlers: Map<string, AnyHandler> }): Promise<void> {
  const { services, handlers } = options;
  const document = implementedDocument(new Set(handlers.keys()));
  const users = new WeakMap<FastifyRequest, User>();
  const oauth: OAuthContext = { store: services.stores.oauth, scopes: operationScopes(document), grants: new WeakMap() };

  fastify.setValidatorCompiler(validatorCompiler);
  // Generated clients send `content-type: application/json` on bodiless calls (pause, restore):
  // an empty body is no body here; the schema then says whether one was needed.
  const parseJson = fastify.getDefaultJsonParser("error", "error");
  fastify.removeContentTypeParser("application/json");
  fastify.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) =>
    body === "" ? done(null, undefined) : parseJson(request, body as string, done),
  );
  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    const refusal = describeError(error);
    // A 503 says a database or setting is not there: the operator needs the reason, not a stack.
    if (refusal.status === 503) request.log.warn({ reason: refusal.message, cause: error.message }, "management request refused: unavailable");
    else if (refusal.status >= 500) request.log.error({ err: error }, "management request failed");
    return fail(reply, refusal.status, refusal.message);
  });

  // Before the body is read: a caller without a valid token, or over the limit, costs no parsing.
  fastify.addHook("onRequest", async (request, reply) => {
    if (request.routeOptions.url === openapiPath) return;
    const user = await authenticate(services, oauth, request, reply);
    if (!user) return reply;
    const decision = await services.rateLimits.take(user.id);
    reply.header("x-ratelimit-limit", decision.limit);
    reply.header("x-ratelimit-remaining", decision.remaining);
    reply.header("x-ratelimit-reset", decision.resetSeconds);
    if (!decision.allowed) {
      reply.header("retry-after", decision.resetSeconds);
      return fail(reply, 429, `Rate limit exceeded: ${decision.limit} requests per minute; try again in ${decision.resetSeconds} s`);
    }
    users.set(request, user);
  });

  fastify.get(openapiPath, async () => document);

  // A list in the query may come repeated (`services=db&services=rest`, the document's form) or
  // comma-separated (`services=db,rest`, as many clients send it): both are the same list.
  fastify.addHook("preValidation", async (request) => {
    const properties = (request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
    const query = request.query as Record<string, unknown> | undefined;
    if (!properties || !query) return;
    for (const [name, value] of Object.entries(query)) {
      if (properties[name]?.type !== "array") continue;
      const items = Array.isArray(value) ? value : [value];
      query[name] = items.flatMap((item) => (typeof item === "string" ? item.split(",").map((s) => s.trim()).filter((s) => s !== "") : [item]));
    }
  });

  await fastify.register(openapiGlue, {
    specification: document,
    operationResolver: (operationId: string) => {
      const handler = handlers.get(operationId)!;
      return async (request: FastifyRequest, reply: FastifyReply) => {
        const answer = await handler({
          services,
          user: users.get(request)!,
          ...(oauth.grants.has(request) ? { grant: oauth.grants.get(request)! } : {}),
          params: request.params,
          query: request.query,
          body: request.body,
          request,
        });
        if (answer.contentType !== undefined) reply.type(answer.contentType);
        if (answer.headers) reply.headers(answer.headers);
        return reply.code(answer.status).send(answer.body);
      };
    },
  });
}

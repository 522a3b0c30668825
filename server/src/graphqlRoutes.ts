// HTTP stage: the /graphql/v1 routes as a Fastify plugin. A request's headers, body or query
// string → its identity and payload → one statement on the database → the resolver's answer.
// Bodies are read as text here (not by the app-wide JSON parser) so variables keep every digit.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { OperationTypeNode } from "graphql";
import type { ServerConfig } from "./config";
import { fail } from "./httpErrors";
import { identify, type Authenticator, type Identity } from "./identity";
import { checkDocument } from "./documentLimits";
import * as metrics from "./metrics";
import type { ReplicaRouter } from "./replicas";
import { payloadFromBody, payloadFromSearch, type PayloadResult } from "./payload";
import { invariant, unreachable } from "../../src/util/invariant";

export const endpointPath = "/graphql/v1";

export interface GraphQLRoutesOptions {
  config: ServerConfig;
  router: ReplicaRouter;
  auth: Authenticator;
}

function graphqlError(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(200).type("application/json; charset=utf-8").send({ data: null, errors: [{ message }] });
}

export async function graphqlRoutes(scope: FastifyInstance, options: GraphQLRoutesOptions): Promise<void> {
  const { config, router, auth } = options;
  // Only JSON bodies are GraphQL requests (anything else is a 415 before any work), kept as text.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => done(null, body));

  const identities = new WeakMap<FastifyRequest, Identity & { kind: "allowed" }>();
  const operations = new WeakMap<FastifyRequest, string>();
  scope.addHook("onResponse", async (request, reply) => {
    const operation = operations.get(request) ?? "none";
    metrics.requests.inc({ status: String(reply.statusCode), operation });
    metrics.latency.observe({ operation }, reply.elapsedTime / 1000);
  });
  // Runs before the body is read, so an unauthorized request costs no parsing and no database work.
  const authorize = async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = await identify(auth, request.headers);
    if (identity.kind === "refused") return fail(reply, 401, identity.message);
    identities.set(request, identity);
  };

  const run = async (request: FastifyRequest, reply: FastifyReply, parsed: PayloadResult, viaGet: boolean) => {
    if (parsed.kind === "malformed") return fail(reply, 400, parsed.message);
    const identity = identities.get(request);
    invariant(identity, "the onRequest hook identifies every GraphQL request");
    const checked = checkDocument(parsed.payload, config.limits);
    if (checked.kind === "refused") return graphqlError(reply, checked.message);
    operations.set(request, checked.operation ?? "unknown");
    if (viaGet && checked.operation === OperationTypeNode.MUTATION) {
      return fail(reply.header("allow", "POST"), 405, "Mutations are accepted only over POST");
    }
    // The response's close before its end means the client went away: its statement is cancelled.
    const gone = new AbortController();
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    const outcome = await router.resolve(checked.operation, identity.role, identity.claims, config.schemas, parsed.payload, gone.signal);
    if (outcome.kind === "failed" || outcome.kind === "unavailable" || outcome.kind === "missingExtension") {
      metrics.errors.inc({ kind: outcome.kind });
    }
    switch (outcome.kind) {
      case "result":
        // The resolver's JSON text goes out as it came from the database.
        return reply.code(200).type("application/json; charset=utf-8").send(outcome.body);
      case "rejected":
        return graphqlError(reply, outcome.message);
      case "timeout":
        metrics.statementTimeouts.inc();
        return graphqlError(reply, outcome.message);
      case "abandoned":
        request.log.info("client closed the request; its statement was cancelled");
        return fail(reply, 499, "The client closed the request");
      case "missingExtension":
        request.log.error(outcome.message);
        return fail(reply, 503, outcome.message);
      case "failed":
        request.log.error({ code: outcome.code, message: outcome.message }, "resolve failed");
        return fail(reply, 500, "Internal server error");
      case "unavailable":
        request.log.error({ message: outcome.message }, "database unavailable");
        return fail(reply, 503, "The database is unavailable");
      default:
        return unreachable(outcome, "outcome");
    }
  };

  scope.post(endpointPath, { onRequest: authorize }, (request, reply) =>
    run(request, reply, payloadFromBody(request.body as string, config.limits.maxVariablesDepth), false),
  );
  scope.get(endpointPath, { onRequest: authorize }, (request, reply) =>
    run(request, reply, payloadFromSearch(request.query as Record<string, unknown>, config.limits.maxVariablesDepth), true),
  );
  scope.route({
    method: ["PUT", "PATCH", "DELETE"],
    url: endpointPath,
    handler: (_request, reply) => fail(reply.header("allow", "GET, POST, OPTIONS"), 405, "Use POST (or GET for queries)"),
  });
}

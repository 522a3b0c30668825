// HTTP stage: the /graphql/v1 routes as a Fastify plugin. A request's headers, body or query
// string → its identity and payload → one statement on the database → the resolver's answer.
// Bodies are read as text here (not by the app-wide JSON parser) so variables keep every digit.
import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { OperationTypeNode } from "graphql";
import type { DocumentLimits, ServerConfig } from "./config";
import type { Database, Outcome, Requester } from "./database";
import { fail } from "./httpErrors";
import { identify, rememberedIdentity, type Allowed, type Authenticator } from "./identity";
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

const jsonType = "application/json; charset=utf-8";

function graphqlError(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(200).type(jsonType).send({ data: null, errors: [{ message }] });
}

/** The client of a response: it left when the response closed before it was written out. */
class ResponseRequester implements Requester {
  constructor(private readonly response: ServerResponse) {}

  get left(): boolean {
    return this.response.closed && !this.response.writableFinished;
  }

  // A response closes once: `on` needs no wrapper per call, as `once` does.
  watch(listener: () => void): void {
    this.response.on("close", listener);
  }

  unwatch(listener: () => void): void {
    this.response.off("close", listener);
  }
}

/** Runs a request's statement: on one database (a Database is one), or a primary and its
 * replicas by operation. The operation's kind also decides what may run again after a failure. */
export interface Resolving {
  resolve(...args: Parameters<Database["resolve"]>): Promise<Outcome>;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The operation a GraphQL request turned out to be, for the metrics written when it is
     * answered (a field rather than a WeakMap entry: cheaper per request). */
    graphqlOperation: string | undefined;
    /** Who a GraphQL request runs as, found before its body is read. */
    graphqlIdentity: Allowed | undefined;
  }
}

/** What a GraphQL request runs against: its database(s), its search path and the document limits. */
export interface GraphqlTarget {
  database: Resolving;
  schemas: string[];
  limits: DocumentLimits;
  /** Says why the database does not answer (a project paused or removed meanwhile). */
  unavailable?: () => Promise<string>;
  /** When set, mutations are answered with this error instead of running (read-only mode). */
  mutationsRefused?: string;
}

/** Reads GraphQL request bodies as text, so variables keep every digit; anything else is a 415. */
export function acceptJsonAsText(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => done(null, body));
}

/** An identified request's payload → one statement on the target's database → the answer. */
export async function answerGraphql(
  target: GraphqlTarget,
  identity: Allowed | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  parsed: PayloadResult,
  viaGet: boolean,
): Promise<FastifyReply> {
  const { database, schemas, limits } = target;
  if (parsed.kind === "malformed") return fail(reply, 400, parsed.message);
  invariant(identity, "GraphQL requests are identified before their body is read");
  const checked = checkDocument(parsed.payload, limits);
  if (checked.kind === "refused") return graphqlError(reply, checked.message);
  request.graphqlOperation = checked.operation ?? "unknown";
  if (viaGet && checked.operation === OperationTypeNode.MUTATION) {
    return fail(reply.header("allow", "POST"), 405, "Mutations are accepted only over POST");
  }
  if (target.mutationsRefused !== undefined && checked.operation === OperationTypeNode.MUTATION) {
    return graphqlError(reply, target.mutationsRefused);
  }
  // The response's close before its end means the client went away: its statement is cancelled.
  const requester = new ResponseRequester(reply.raw);
  const outcome = await database.resolve(checked.operation, identity.role, identity.claims, schemas, parsed.payload, requester);
  if (outcome.kind === "failed" || outcome.kind === "unavailable" || outcome.kind === "missingExtension" || outcome.kind === "busy") {
    metrics.errors.inc({ kind: outcome.kind });
  }
  switch (outcome.kind) {
    case "result":
      // The resolver's JSON text goes out as it came from the database.
      return reply.code(200).type(jsonType).send(outcome.body);
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
    case "busy":
      request.log.warn({ message: outcome.message }, "no connection came free");
      return fail(reply.header("retry-after", "1"), 503, outcome.message);
    case "unavailable":
      request.log.error({ message: outcome.message }, "database unavailable");
      return fail(reply, 503, target.unavailable ? await target.unavailable() : "The database is unavailable");
    default:
      return unreachable(outcome, "outcome");
  }
}

export async function graphqlRoutes(scope: FastifyInstance, options: GraphQLRoutesOptions): Promise<void> {
  const { config, router, auth } = options;
  // Only JSON bodies are GraphQL requests (anything else is a 415 before any work), kept as text.
  acceptJsonAsText(scope);

  scope.decorateRequest("graphqlOperation", undefined);
  scope.decorateRequest("graphqlIdentity", undefined);
  // Hooks in callback style: an async hook costs a promise and a turn of the microtask queue.
  scope.addHook("onResponse", (request, reply, done) => {
    const operation = request.graphqlOperation ?? "none";
    metrics.requests.inc({ status: String(reply.statusCode), operation });
    metrics.latency.observe({ operation }, reply.elapsedTime / 1000);
    done();
  });
  // Runs before the body is read, so an unauthorized request costs no parsing and no database work.
  const authorize = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const known = rememberedIdentity(auth, request.headers);
    if (known) {
      request.graphqlIdentity = known;
      return done();
    }
    identify(auth, request.headers).then((identity) => {
      if (identity.kind === "refused") return fail(reply, 401, identity.message);
      request.graphqlIdentity = identity;
      done();
    }, done);
  };

  const target: GraphqlTarget = { database: router, schemas: config.schemas, limits: config.limits };
  const depth = config.limits.maxVariablesDepth;
  scope.post(endpointPath, { onRequest: authorize }, (request, reply) =>
    answerGraphql(target, request.graphqlIdentity, request, reply, payloadFromBody(request.body as string, depth), false),
  );
  scope.get(endpointPath, { onRequest: authorize }, (request, reply) =>
    answerGraphql(target, request.graphqlIdentity, request, reply, payloadFromSearch(request.query as Record<string, unknown>, depth), true),
  );
  scope.route({
    method: ["PUT", "PATCH", "DELETE"],
    url: endpointPath,
    handler: (_request, reply) => fail(reply.header("allow", "GET, POST, OPTIONS"), 405, "Use POST (or GET for queries)"),
  });
}

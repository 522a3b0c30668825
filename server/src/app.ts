// HTTP stage: a server configuration → a Fastify app serving POST/GET /graphql/v1, GraphiQL and
// /health. Each GraphQL request becomes exactly one statement on the database.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import cors from "@fastify/cors";
import { OperationTypeNode } from "graphql";
import type { ServerConfig } from "./config";
import { Database } from "./database";
import { graphiqlPage } from "./graphiqlPage";
import { identify, type Identity } from "./identity";
import { Keyring, type ApiKeys } from "./keys";
import { replyWithOutcome } from "./outcomeReply";
import { operationType, payloadFromBody, payloadFromSearch, type PayloadResult } from "./payload";
import { invariant } from "../../src/util/invariant";

export interface AppOptions {
  config: ServerConfig;
  /** Folder holding the bundled graphiql.js and graphiql.css. */
  assetsDir: string;
}

export interface App {
  config: ServerConfig;
  fastify: FastifyInstance;
  database: Database;
  keys: ApiKeys;
  /** Stops accepting requests, lets in-flight ones finish, then closes the pool. */
  close(): Promise<void>;
}

export const endpointPath = "/graphql/v1";
export const graphiqlPath = `${endpointPath}/graphiql`;
const assetFiles: Record<string, string> = {
  "graphiql.js": "application/javascript; charset=utf-8",
  "graphiql.css": "text/css; charset=utf-8",
};
const defaultQuery = `# Send queries to ${endpointPath}; the apiKey header is preset below.
query {
  __typename
}
`;

function fail(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send({ message });
}

export async function buildApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const keyring = new Keyring(config.jwtSecret);
  const keys = await keyring.apiKeys();
  const database = new Database(config.databaseUrl, config.poolSize);
  const fastify = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    return503OnClosing: true,
    forceCloseConnections: "idle",
  });

  // Only JSON bodies are GraphQL requests; anything else is answered 415 before any work.
  fastify.removeContentTypeParser("text/plain");

  await fastify.register(cors, {
    origin: config.corsOrigins === "*" ? "*" : config.corsOrigins,
    methods: ["GET", "POST", "OPTIONS"],
    allowedHeaders: ["apikey", "authorization", "content-type", "x-client-info"],
    maxAge: 600,
  });

  fastify.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, "request failed");
      return fail(reply, status, "Internal server error");
    }
    return fail(reply, status, error.message);
  });
  fastify.setNotFoundHandler((request, reply) => fail(reply, 404, `Not found: ${request.method} ${request.url.split("?")[0]}`));

  const identities = new WeakMap<FastifyRequest, Identity & { kind: "allowed" }>();
  // Runs before the body is read, so an unauthorized request costs no parsing and no database work.
  const authorize = async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = await identify(keyring, request.headers);
    if (identity.kind === "refused") return fail(reply, 401, identity.message);
    identities.set(request, identity);
  };

  const run = async (request: FastifyRequest, reply: FastifyReply, parsed: PayloadResult, viaGet: boolean) => {
    if (parsed.kind === "malformed") return fail(reply, 400, parsed.message);
    const identity = identities.get(request);
    invariant(identity, "the onRequest hook identifies every GraphQL request");
    if (viaGet && operationType(parsed.payload) === OperationTypeNode.MUTATION) {
      return fail(reply.header("allow", "POST"), 405, "Mutations are accepted only over POST");
    }
    return replyWithOutcome(request, reply, await database.resolve(identity.role, identity.claims, config.schemas, parsed.payload));
  };

  fastify.post(endpointPath, { onRequest: authorize }, (request, reply) =>
    run(request, reply, payloadFromBody(request.body), false),
  );
  fastify.get(endpointPath, { onRequest: authorize }, (request, reply) =>
    run(request, reply, payloadFromSearch(request.query as Record<string, unknown>), true),
  );
  fastify.route({
    method: ["PUT", "PATCH", "DELETE"],
    url: endpointPath,
    handler: (_request, reply) => fail(reply.header("allow", "GET, POST, OPTIONS"), 405, "Use POST (or GET for queries)"),
  });

  fastify.get(graphiqlPath, (_request, reply) =>
    reply.type("text/html; charset=utf-8").send(
      graphiqlPage({ endpoint: endpointPath, apiKey: keys.anon, assetsPath: `${graphiqlPath}/assets`, defaultQuery }),
    ),
  );
  fastify.get<{ Params: { file: string } }>(`${graphiqlPath}/assets/:file`, async (request, reply) => {
    const type = assetFiles[request.params.file];
    if (type === undefined) return fail(reply, 404, `Not found: ${request.url}`);
    let content: Buffer;
    try {
      content = await readFile(join(options.assetsDir, request.params.file));
    } catch {
      return fail(reply, 404, "GraphiQL assets are missing: build them with `node server/build.mjs`");
    }
    return reply.type(type).header("cache-control", "public, max-age=3600").send(content);
  });

  // Browsers ask for an icon on every page; answering "no content" keeps their consoles clean.
  fastify.get("/favicon.ico", (_request, reply) => reply.code(204).send());

  fastify.get("/health", async (_request, reply) =>
    (await database.healthy())
      ? reply.send({ status: "ok" })
      : fail(reply, 503, "The database is unavailable"),
  );

  let closing: Promise<void> | undefined;
  // Answers sent while closing end their keep-alive connection, so the close need not wait for
  // idle clients to time out.
  fastify.addHook("onSend", async (_request, reply, payload) => {
    if (closing) reply.header("connection", "close");
    return payload;
  });
  return {
    config,
    fastify,
    database,
    keys,
    close() {
      // A signal and an owner may both ask; the pool must be ended once, after the last request.
      closing ??= fastify.close().then(() => database.end());
      return closing;
    },
  };
}

// HTTP stage: a server configuration → a Fastify app serving POST/GET /graphql/v1, GraphiQL and
// /health. Each GraphQL request becomes exactly one statement on the database.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import cors from "@fastify/cors";
import type { ServerConfig } from "./config";
import type { Database } from "./database";
import { graphiqlPage } from "./graphiqlPage";
import { endpointPath, graphqlRoutes } from "./graphqlRoutes";
import { healthRoutes } from "./health";
import { fail } from "./httpErrors";
import { authenticator } from "./identity";
import { Keyring, type ApiKeys } from "./keys";
import { drainingClose } from "./drain";
import { echoRequestId, loggerOptions, requestId } from "./logging";
import { metricsRoute, watchPool } from "./metrics";
import { connectRouter, type ReplicaRouter } from "./replicas";

export interface AppOptions {
  config: ServerConfig;
  /** Folder holding the bundled graphiql.js and graphiql.css. */
  assetsDir: string;
}

export interface App {
  config: ServerConfig;
  fastify: FastifyInstance;
  /** The primary. */
  database: Database;
  /** The primary and read replicas, by operation. */
  router: ReplicaRouter;
  keys: ApiKeys;
  /** Stops accepting requests, lets in-flight ones finish, then closes the pool. */
  close(): Promise<void>;
}

export { endpointPath };
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

/** The configured proxies as Fastify takes them (a hop count as the function of its hops). */
export function trustProxyOption(trust: ServerConfig["trustProxy"]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === "number" ? (_address, hop) => hop < trust : trust;
}

export async function buildApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const keyring = new Keyring(config.jwtSecret);
  const keys = await keyring.apiKeys();
  const router = connectRouter(config);
  const database = router.primary;
  await router.start();
  const unwatch = router.databases().map((d, i) => watchPool(d.pool, i === 0 ? "primary" : "replica"));
  const fastify = Fastify({
    logger: loggerOptions(config.logLevel),
    genReqId: requestId,
    bodyLimit: config.bodyLimit,
    trustProxy: trustProxyOption(config.trustProxy),
    return503OnClosing: true,
    forceCloseConnections: "idle",
  });

  fastify.addHook("onRequest", echoRequestId);
  const closeFastify = drainingClose(fastify);

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

  const auth = await authenticator(config, keyring);
  await fastify.register(graphqlRoutes, { config, router, auth });

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

  await fastify.register(healthRoutes, { database });
  await fastify.register(metricsRoute);

  let closing: Promise<void> | undefined;
  // Answers sent while closing end their keep-alive connection, so the close need not wait for
  // idle clients to time out.
  fastify.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });
  return {
    config,
    fastify,
    database,
    router,
    keys,
    close() {
      // A signal and an owner may both ask; the pool must be ended once, after the last request.
      closing ??= closeFastify().then(async () => {
        for (const stop of unwatch) stop();
        await Promise.all([database.end(), router.end()]);
      });
      return closing;
    },
  };
}

// HTTP stage: a server configuration → the single database's data API: its databases (primary and
// read replicas) and keys, opened before the server starts, and the encapsulated plugin serving
// POST/GET /graphql/v1, GraphiQL and /health over them. Each GraphQL request becomes exactly one
// statement on the database.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { ServerConfig } from "./config";
import type { Database } from "./database";
import { graphiqlPage } from "./graphiqlPage";
import { endpointPath, graphqlRoutes } from "./graphqlRoutes";
import { healthRoutes } from "./health";
import { fail } from "./httpErrors";
import { authenticator, type Authenticator } from "./identity";
import { Keyring, type ApiKeys } from "./keys";
import { watchPool } from "./metrics";
import { connectRouter, type ReplicaRouter } from "./replicas";

export interface DataApi {
  config: ServerConfig;
  /** The primary. */
  database: Database;
  /** The primary and read replicas, by operation. */
  router: ReplicaRouter;
  keys: ApiKeys;
  /** The API keys, user token verifiers and roles requests are identified with. */
  auth: Authenticator;
  /** Closes the pools (the plugin does when the server closes). */
  end(): Promise<void>;
}

export interface DataApiPluginOptions {
  dataApi: DataApi;
  /** Folder holding the bundled graphiql.js and graphiql.css. */
  assetsDir: string;
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

/** Opens the pools and reads the keys; `end` closes them. */
export async function openDataApi(config: ServerConfig): Promise<DataApi> {
  const keyring = new Keyring(config.jwtSecret);
  const keys = await keyring.apiKeys();
  const auth = await authenticator(config, keyring);
  const router = connectRouter(config);
  const database = router.primary;
  await router.start();
  const unwatch = router.databases().map((d, i) => watchPool(d.pool, i === 0 ? "primary" : "replica"));
  let ended: Promise<void> | undefined;
  return {
    config,
    database,
    router,
    keys,
    auth,
    end() {
      ended ??= (async () => {
        for (const stop of unwatch) stop();
        await Promise.all([database.end(), router.end()]);
      })();
      return ended;
    },
  };
}

/** The data API's routes; its pools close when the server does, after the last request. */
export async function dataApiPlugin(scope: FastifyInstance, options: DataApiPluginOptions): Promise<void> {
  const { dataApi, assetsDir } = options;
  const { config, router, database, auth } = dataApi;
  scope.addHook("onClose", () => dataApi.end());
  await scope.register(graphqlRoutes, { config, router, auth });

  scope.get(graphiqlPath, (_request, reply) =>
    reply.type("text/html; charset=utf-8").send(
      graphiqlPage({ endpoint: endpointPath, apiKey: dataApi.keys.anon, assetsPath: `${graphiqlPath}/assets`, defaultQuery }),
    ),
  );
  scope.get<{ Params: { file: string } }>(`${graphiqlPath}/assets/:file`, async (request, reply) => {
    const type = assetFiles[request.params.file];
    if (type === undefined) return fail(reply, 404, `Not found: ${request.url}`);
    let content: Buffer;
    try {
      content = await readFile(join(assetsDir, request.params.file));
    } catch {
      return fail(reply, 404, "GraphiQL assets are missing: build them with `node server/build.mjs`");
    }
    return reply.type(type).header("cache-control", "public, max-age=3600").send(content);
  });

  // Browsers ask for an icon on every page; answering "no content" keeps their consoles clean.
  scope.get("/favicon.ico", (_request, reply) => reply.code(204).send());

  await scope.register(healthRoutes, { database });
}

// Server lifecycle: a configuration → a listening server for the single database (and, with a
// platform database, the Management API beside it), its public addresses and keys, and a
// graceful stop on SIGINT/SIGTERM (in-flight requests finish, then the pools close).
import cluster from "node:cluster";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { dataApiPlugin, openDataApi, type DataApi } from "./dataApi";
import type { ServerConfig } from "./config";
import { createHttpServer } from "./http/createHttpServer";
import { dataApiSettings, registerManagement } from "./management/plugin";
import { dashboardRoute } from "./dashboard/dashboardRoute";
import { checkExtraRoles, startupWarnings } from "./startupChecks";

// Both the source file and the bundle in dist/ sit one folder below server/.
export const defaultAssetsDir = fileURLToPath(new URL("../dist/graphiql/", import.meta.url));

export interface App extends Pick<DataApi, "config" | "database" | "router" | "keys"> {
  fastify: FastifyInstance;
  /** Stops accepting requests, lets in-flight ones finish, then closes the pools. */
  close(): Promise<void>;
}

export interface Running {
  app: App;
  baseUrl: string;
  /** Problems found at start-up (also logged): a missing extension, a superuser login. */
  warnings: string[];
}

export async function serve(config: ServerConfig, assetsDir = defaultAssetsDir): Promise<Running> {
  const dataApi = await openDataApi(config);
  const server = createHttpServer(config);
  const { fastify } = server;
  let baseUrl: string;
  try {
    await checkExtraRoles(dataApi.database, config.extraRoles);
    await fastify.register(dataApiPlugin, { dataApi, assetsDir });
    if (config.management) {
      await registerManagement(fastify, { config: config.management, dataApi: dataApiSettings({ ...config, management: config.management }), processes: config.workers });
      await fastify.register(dashboardRoute, {});
    }
    baseUrl = await server.listen();
  } catch (e) {
    try {
      await server.close();
    } finally {
      await dataApi.end();
    }
    throw e;
  }
  fastify.log.info(
    { schemas: config.schemas, poolSize: config.poolSize, bodyLimit: config.bodyLimit, corsOrigins: config.corsOrigins },
    "serving /graphql/v1",
  );
  const warnings = await startupWarnings(dataApi.database);
  for (const warning of warnings) fastify.log.warn(warning);
  const { database, router, keys } = dataApi;
  return { app: { config, fastify, database, router, keys, close: server.close }, baseUrl, warnings };
}

/** Calls `stop` once on the first SIGINT or SIGTERM (SIGTERM only in a cluster worker: its
 * primary sends it, while a terminal's Ctrl-C reaches the whole group); a second signal exits at
 * once. */
export function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`\n${signal}: shutting down\n`);
    stop().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`shutdown failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", cluster.isWorker ? () => {} : handler);
  process.on("SIGTERM", handler);
}

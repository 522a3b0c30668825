// Server lifecycle (platform mode): settings without a database of their own → a listening
// server for the Management API and the projects' GraphQL endpoints (the shared HTTP server with
// the Management API's plugin and the dashboard), and the database router beside it.
import type { FastifyInstance } from "fastify";
import type { PlatformServerConfig } from "../config";
import { createHttpServer } from "../http/createHttpServer";
import { fail } from "../httpErrors";
import { dataApiSettings, registerManagement, type ManagementPluginOptions } from "./plugin";
import type { Services } from "./services";
import { DatabaseRouter } from "./pgRouter/databaseRouter";
import { projectRoutes } from "./pgRouter/projectRoutes";
import { dashboardRoute } from "../dashboard/dashboardRoute";

export interface PlatformRunning {
  fastify: FastifyInstance;
  baseUrl: string;
  services: Services;
  /** The database router's port, when it runs. */
  routerPort?: number;
  close(): Promise<void>;
}

export async function servePlatform(
  config: PlatformServerConfig,
  extra: Pick<ManagementPluginOptions, "checkpoint" | "areas"> & { drainMs?: number } = {},
): Promise<PlatformRunning> {
  const { drainMs, ...pluginExtra } = extra;
  const server = createHttpServer(config, drainMs === undefined ? {} : { drainMs });
  const { fastify } = server;
  let baseUrl: string;
  let services: Services;
  let router: DatabaseRouter | undefined;
  try {
    services = await registerManagement(fastify, { config: config.management, dataApi: dataApiSettings(config), processes: config.workers, ...pluginExtra });
    await fastify.register(dashboardRoute, {});
    await fastify.register(platformHealth, { services });
    const { limits, holds } = services;
    if (config.management.databaseRouterPort !== undefined) {
      const routed = new DatabaseRouter(projectRoutes(services.projects), { perProject: limits.routerPerProject, total: limits.routerTotal }, holds);
      router = routed;
      // Its sessions end as the stop begins; the close waits for that with the requests.
      let routerClosed: Promise<void> | undefined;
      fastify.addHook("preClose", (done) => {
        routerClosed = routed.close();
        done();
      });
      fastify.addHook("onClose", async () => routerClosed);
    }
    baseUrl = await server.listen();
    // The bound port (the configured one may be 0) is what the pooler config reports.
    if (router) {
      const port = await router.listen(config.management.databaseRouterPort!, config.host);
      services.databaseRouter = { host: config.host, port, sessionsPerProject: limits.routerPerProject };
    }
  } catch (e) {
    await server.close();
    throw e;
  }
  return {
    fastify,
    baseUrl,
    services,
    ...(services.databaseRouter ? { routerPort: services.databaseRouter.port } : {}),
    close: server.close,
  };
}

/** `/health`: whether the platform database answers. */
async function platformHealth(fastify: FastifyInstance, options: { services: Services }): Promise<void> {
  fastify.get("/health", async (_request, reply) => {
    try {
      await options.services.platform.rows("select 1");
      return { status: "ok" };
    } catch {
      return fail(reply, 503, "The platform database is unavailable");
    }
  });
}

// Server lifecycle (platform mode): settings without a database of their own → a listening
// server for the Management API and the projects' GraphQL endpoints, and its banner.
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import cors from "@fastify/cors";
import type { PlatformServerConfig } from "../config";
import { dataApiSettings, managementPlugin, type ManagementPluginOptions } from "./plugin";
import { projectPathPrefix } from "./dataApi/projectGraphql";
import type { Services } from "./services";
import { DatabaseRouter } from "./router/databaseRouter";
import { projectRoutes } from "./router/projectRoutes";
import { dashboardPath, dashboardRoute } from "../dashboard/dashboardRoute";

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
  extra: Pick<ManagementPluginOptions, "checkpoint" | "areas"> = {},
): Promise<PlatformRunning> {
  const fastify = Fastify({ logger: { level: config.logLevel }, bodyLimit: config.bodyLimit, return503OnClosing: true, forceCloseConnections: "idle" });
  fastify.removeContentTypeParser("text/plain");
  await fastify.register(cors, {
    origin: config.corsOrigins === "*" ? "*" : config.corsOrigins,
    allowedHeaders: ["apikey", "authorization", "content-type", "x-client-info"],
    maxAge: 600,
  });
  fastify.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ message: `Not found: ${request.method} ${request.url.split("?")[0]}` }),
  );
  let services: Services | undefined;
  await fastify.register(managementPlugin, {
    config: config.management,
    dataApi: dataApiSettings(config),
    processes: config.workers,
    onServices: (s) => (services = s),
    ...extra,
  });
  await fastify.register(dashboardRoute, {});
  fastify.get("/health", async (_request, reply) => {
    try {
      await services!.platform.rows("select 1");
      return { status: "ok" };
    } catch {
      return reply.code(503).send({ message: "The platform database is unavailable" });
    }
  });
  await fastify.listen({ host: config.host, port: config.port });
  const address = fastify.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const routerPort = config.management.databaseRouterPort;
  const router = routerPort === undefined ? undefined : new DatabaseRouter(projectRoutes(services!.projects), {
          perProject: services!.limits.routerPerProject,
          total: services!.limits.routerTotal,
        });
  // The bound port (the configured one may be 0) is what the pooler config reports.
  if (router) {
    const port = await router.listen(routerPort!, config.host);
    services!.databaseRouter = { host: config.host, port, sessionsPerProject: services!.limits.routerPerProject };
  }
  let closing: Promise<void> | undefined;
  return {
    fastify,
    baseUrl: `http://${host}:${address.port}`,
    services: services!,
    ...(services!.databaseRouter ? { routerPort: services!.databaseRouter.port } : {}),
    close: () => (closing ??= Promise.all([fastify.close(), router?.close()]).then(() => undefined)),
  };
}

export function platformBanner(running: Pick<PlatformRunning, "baseUrl">): string {
  const rows: Array<[string, string]> = [
    ["Management API", `${running.baseUrl}/v1`],
    ["Dashboard", `${running.baseUrl}${dashboardPath}`],
    ["OpenAPI", `${running.baseUrl}/v1/openapi.json`],
    ["Project GraphQL", `${running.baseUrl}${projectPathPrefix.replace(":ref", "<ref>")}/graphql/v1`],
    ["Health", `${running.baseUrl}/health`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padStart(width)}: ${v}`).join("\n");
}

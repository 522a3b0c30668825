// Server lifecycle (platform mode): settings without a database of their own → a listening
// server for the Management API and the projects' GraphQL endpoints, and its banner.
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import cors from "@fastify/cors";
import { trustProxyOption } from "../app";
import { aligned } from "../serve";
import type { PlatformServerConfig } from "../config";
import { dataApiSettings, registerManagement, type ManagementPluginOptions } from "./plugin";
import { projectPathPrefix } from "./dataApi/projectGraphql";
import type { Services } from "./services";
import { DatabaseRouter } from "./pgRouter/databaseRouter";
import { projectRoutes } from "./pgRouter/projectRoutes";
import { dashboardPath, dashboardRoute } from "../dashboard/dashboardRoute";

export interface PlatformRunning {
  fastify: FastifyInstance;
  baseUrl: string;
  services: Services;
  /** The database router's port, when it runs. */
  routerPort?: number;
  close(): Promise<void>;
}

/** The longest a stop waits for requests in flight (a project operation queued for its turn, a
 * statement) before it closes their connections anyway. */
export const defaultDrainMs = 30_000;

export async function servePlatform(
  config: PlatformServerConfig,
  extra: Pick<ManagementPluginOptions, "checkpoint" | "areas"> & { drainMs?: number } = {},
): Promise<PlatformRunning> {
  const { drainMs = defaultDrainMs, ...pluginExtra } = extra;
  const fastify = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    trustProxy: trustProxyOption(config.trustProxy),
    return503OnClosing: true, forceCloseConnections: "idle" });
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
  await registerManagement(fastify, {
    config: config.management,
    dataApi: dataApiSettings(config),
    processes: config.workers,
    onServices: (s) => (services = s),
    ...pluginExtra,
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
        }, services!.holds);
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
    close: () => (closing ??= drain(fastify, Promise.all([fastify.close(), router?.close()]).then(() => undefined), drainMs)),
  };
}

/** Resolves with "late" after `ms`, unless `done` settles first. */
async function within(done: Promise<void>, ms: number): Promise<"done" | "late"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
    timer.unref();
  });
  const outcome = await Promise.race([done.then(() => "done" as const), late]);
  clearTimeout(timer);
  return outcome;
}

/** Waits for `closed`; past `ms`, closes every connection left (their requests get no answer),
 * which lets the services close, and waits for that a few seconds more at most: the process can
 * then exit whatever its stuck work does. */
async function drain(fastify: FastifyInstance, closed: Promise<void>, ms: number): Promise<void> {
  if ((await within(closed, ms)) === "done") return;
  fastify.log.warn(`requests still running ${ms} ms after the stop began: their connections are closed`);
  fastify.server.closeAllConnections();
  await within(closed, 5000);
}

/** The addresses a platform prints when it starts; `keyFile` is the secrets key file in use. */
export function platformBanner(running: { baseUrl: string; keyFile?: string | undefined }): string {
  const keyFile = running.keyFile;
  const rows: Array<[string, string]> = [
    ["Management API", `${running.baseUrl}/v1`],
    ["Dashboard", `${running.baseUrl}${dashboardPath}`],
    ["OpenAPI", `${running.baseUrl}/v1/openapi.json`],
    ["Project GraphQL", `${running.baseUrl}${projectPathPrefix.replace(":ref", "<ref>")}/graphql/v1`],
    ["Health", `${running.baseUrl}/health`],
    ...(keyFile ? ([["Secrets key file", keyFile]] as Array<[string, string]>) : []),
  ];
  return aligned(rows);
}

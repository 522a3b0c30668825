// Server lifecycle: a configuration → a listening app, its public addresses and keys, and a
// graceful stop on SIGINT/SIGTERM (in-flight requests finish, then the pool closes).
import cluster from "node:cluster";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { buildApp, endpointPath, graphiqlPath, type App } from "./app";
import type { ServerConfig } from "./config";
import type { ApiKeys } from "./keys";
import { dataApiSettings, registerManagement } from "./management/plugin";
import { dashboardRoute } from "./dashboard/dashboardRoute";
import { checkExtraRoles, startupWarnings } from "./startupChecks";

// Both the source file and the bundle in dist/ sit one folder below server/.
export const defaultAssetsDir = fileURLToPath(new URL("../dist/graphiql/", import.meta.url));

export interface Running {
  app: App;
  baseUrl: string;
  /** Problems found at start-up (also logged): a missing extension, a superuser login. */
  warnings: string[];
}

export async function serve(config: ServerConfig, assetsDir = defaultAssetsDir): Promise<Running> {
  const app = await buildApp({ config, assetsDir });
  try {
    await checkExtraRoles(app.database, config.extraRoles);
  } catch (e) {
    await app.close();
    throw e;
  }
  if (config.management) {
    try {
      await registerManagement(app.fastify, { config: config.management, dataApi: dataApiSettings({ ...config, management: config.management }), processes: config.workers });
      await app.fastify.register(dashboardRoute, {});
    } catch (e) {
      await app.close();
      throw e;
    }
  }
  await app.fastify.listen({ host: config.host, port: config.port });
  app.fastify.log.info(
    { schemas: config.schemas, poolSize: config.poolSize, bodyLimit: config.bodyLimit, corsOrigins: config.corsOrigins },
    "serving /graphql/v1",
  );
  const warnings = await startupWarnings(app.database);
  for (const warning of warnings) app.fastify.log.warn(warning);
  const address = app.fastify.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { app, baseUrl: `http://${host}:${address.port}`, warnings };
}

export function banner(running: { baseUrl: string; app: { keys: ApiKeys } }, extra: Array<[string, string]> = []): string {
  const rows: Array<[string, string]> = [
    ["GraphQL URL", `${running.baseUrl}${endpointPath}`],
    ["GraphiQL", `${running.baseUrl}${graphiqlPath}`],
    ["Health", `${running.baseUrl}/health`],
    ["Metrics", `${running.baseUrl}/metrics`],
    ["anon key", running.app.keys.anon],
    ["service_role key", running.app.keys.serviceRole],
    ...extra,
  ];
  return aligned(rows);
}

/** `name: value` lines with the names right-aligned. */
export function aligned(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padStart(width)}: ${v}`).join("\n");
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

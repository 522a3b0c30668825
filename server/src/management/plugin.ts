// Management API entry: one Fastify plugin that opens the platform services and serves the
// /v1 Management API and every project's GraphQL endpoint and JWKS. Registered from one place (serve).
import type { FastifyInstance } from "fastify";
import type { ServerConfig } from "../config";
import { registerProjectGraphql } from "./dataApi/projectGraphql";
import { registerProjectJwks } from "./dataApi/projectJwks";
import { registerFunctionUploads } from "./functions/functionUploads";
import { registerRequestLog } from "./logs/requestLog";
import type { DataApiSettings } from "./dataApi/projectPools";
import { v1Api } from "./http/v1Api";
import { oauthRoutes } from "./oauth/oauthRoutes";
import type { ManagementConfig } from "./managementConfig";
import type { ProvisionStep } from "./provision/provisioner";
import type { ApiArea } from "./routes/operation";
import { openServices, type Services } from "./services";
import { startSweeps } from "./settings/sweep";
import { startBranchPurges } from "./branches/branchLifecycle";

export interface ManagementPluginOptions {
  config: ManagementConfig;
  /** How the projects' data APIs run requests. */
  dataApi: DataApiSettings;
  /** Replaces the built-in API areas (tests). */
  areas?: ApiArea[];
  checkpoint?: (step: ProvisionStep, ref: string) => Promise<void>;
  /** Server processes sharing the port (each holds its own data API pools). */
  processes?: number;
  /** Receives the opened services (tests and the token command reach the platform through them). */
  onServices?: (services: Services) => void;
}

export async function managementPlugin(fastify: FastifyInstance, options: ManagementPluginOptions): Promise<void> {
  const services = await openServices(options.config, {
    log: fastify.log,
    dataApi: options.dataApi,
    ...(options.processes !== undefined ? { processes: options.processes } : {}),
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
  });
  const stopSweeps = startSweeps(services, fastify.log);
  const stopBranchPurges = startBranchPurges(services, fastify.log);
  fastify.addHook("onClose", () => {
    stopSweeps();
    stopBranchPurges();
    return services.close();
  });
  options.onServices?.(services);
  if (options.config.requestLogs !== false) registerRequestLog(fastify, services.logWriter);
  await registerFunctionUploads(fastify);
  await fastify.register(oauthRoutes, { services });
  await fastify.register(v1Api, { services, ...(options.areas ? { areas: options.areas } : {}) });
  await fastify.register(registerProjectGraphql, { pools: services.pools, bans: services.bans });
  await fastify.register(registerProjectJwks, { services });
}

/** How long a data API request waits for room in its server's connection budget. */
const connectionWaitMs = 10_000;

export function dataApiSettings(
  config: Pick<ServerConfig, "poolSize" | "statementTimeoutMs" | "preparedStatements" | "limits"> & { management: Pick<ManagementConfig, "poolIdleTimeoutMs"> },
): DataApiSettings {
  const { poolSize, statementTimeoutMs, preparedStatements, limits } = config;
  return { poolSize, statementTimeoutMs, preparedStatements, limits, idleTimeoutMs: config.management.poolIdleTimeoutMs ?? 60_000, connectionWaitMs };
}

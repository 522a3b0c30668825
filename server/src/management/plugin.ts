// Management API entry: opens the platform services (outside any plugin's load timeout), then one
// Fastify plugin serves the /v1 Management API and every project's GraphQL endpoint and JWKS.
import type { FastifyInstance } from "fastify";
import type { ServerConfig } from "../config";
import { registerProjectGraphql } from "./dataApi/projectGraphql";
import { registerProjectJwks } from "./dataApi/projectJwks";
import { registerFunctionUploads } from "./functions/functionUploads";
import { registerRequestLog } from "./logs/requestLog";
import type { DataApiSettings } from "./dataApi/projectPools";
import { v1Api } from "./http/v1Api";
import { allHandlers } from "./areas";
import { oauthRoutes } from "./oauth/oauthRoutes";
import type { ManagementConfig } from "./managementConfig";
import type { ProvisionStep } from "./projects/provisioner";
import type { ApiArea } from "./http/operation";
import type { Services } from "./services";
import { startServices } from "./startServices";
import { loadOrCreateSecretsKey } from "./secrets/secretsKeyFile";
import { startSweeps } from "./sweep";
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
}

/** Opens the services (with start-up retries), then registers the plugin that serves them; the
 * plugin closes them when the server closes. */
export async function registerManagement(fastify: FastifyInstance, options: ManagementPluginOptions): Promise<Services> {
  const services = await startServices(withSecretsKey(options.config, fastify.log), {
    log: fastify.log,
    dataApi: options.dataApi,
    ...(options.processes !== undefined ? { processes: options.processes } : {}),
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
  });
  try {
    await fastify.register(managementPlugin, { ...options, services });
  } catch (e) {
    await services.close();
    throw e;
  }
  return services;
}

/** The configuration with its secrets key, read from (or made into) the key file when no key
 * was given. */
function withSecretsKey(config: ManagementConfig, log: FastifyInstance["log"]): ManagementConfig {
  if (config.secretsKey || !config.secretsKeyFile) return config;
  const { key, created } = loadOrCreateSecretsKey(config.secretsKeyFile);
  if (created) {
    log.info(
      { file: config.secretsKeyFile },
      "made a new secrets key file (0600): keep it safe, and with every server process of this platform; without it stored secrets cannot be read",
    );
  } else {
    log.info({ file: config.secretsKeyFile }, "secrets key read from its file");
  }
  return { ...config, secretsKey: key };
}

function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === "::1";
}

async function managementPlugin(fastify: FastifyInstance, options: ManagementPluginOptions & { services: Services }): Promise<void> {
  const { services } = options;
  const stopSweeps = startSweeps(services, fastify.log);
  const stopBranchPurges = startBranchPurges(services, fastify.log);
  fastify.addHook("onClose", () => {
    stopSweeps();
    stopBranchPurges();
    return services.close();
  });
  if (options.config.requestLogs !== false) registerRequestLog(fastify, services.logWriter);
  await registerFunctionUploads(fastify);
  await fastify.register(oauthRoutes, { services });
  await fastify.register(v1Api, { services, handlers: allHandlers(options.areas) });
  await fastify.register(registerProjectGraphql, {
    pools: services.pools,
    bans: services.bans,
    ...(options.config.banExemptLoopback ? { banExempt: isLoopback } : {}),
  });
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

// Management API entry: one Fastify plugin that opens the platform services and serves the
// /v1 Management API and every project's GraphQL endpoint. Registered from one place (serve).
import type { FastifyInstance } from "fastify";
import { registerProjectGraphql } from "./dataApi/projectGraphql";
import { v1Api } from "./http/v1Api";
import type { ManagementConfig } from "./managementConfig";
import type { ProvisionStep } from "./provision/provisioner";
import type { ApiArea } from "./routes/operation";
import { openServices, type Services } from "./services";

export interface ManagementPluginOptions {
  config: ManagementConfig;
  /** Connections per project for its data API. */
  projectPoolSize: number;
  /** Replaces the built-in API areas (tests). */
  areas?: ApiArea[];
  checkpoint?: (step: ProvisionStep, ref: string) => Promise<void>;
  /** Receives the opened services (tests and the token command reach the platform through them). */
  onServices?: (services: Services) => void;
}

export async function managementPlugin(fastify: FastifyInstance, options: ManagementPluginOptions): Promise<void> {
  const services = await openServices(options.config, {
    log: fastify.log,
    projectPoolSize: options.projectPoolSize,
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
  });
  fastify.addHook("onClose", () => services.close());
  options.onServices?.(services);
  await fastify.register(v1Api, { services, ...(options.areas ? { areas: options.areas } : {}) });
  registerProjectGraphql(fastify, services.pools);
}

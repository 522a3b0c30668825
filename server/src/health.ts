// HTTP stage: the health routes. Liveness says the process serves HTTP; readiness says requests
// can succeed: the database answers and has graphql.resolve. `/health` is readiness.
import type { FastifyInstance } from "fastify";
import type { Database } from "./database";
import { fail } from "./httpErrors";
import { missingExtensionMessage } from "./outcome";

export type Readiness = { kind: "ready" } | { kind: "notReady"; message: string };

export async function readiness(database: Database): Promise<Readiness> {
  const state = await database.ready();
  if (!state.database) return { kind: "notReady", message: "The database is unavailable" };
  if (!state.extension) return { kind: "notReady", message: missingExtensionMessage };
  return { kind: "ready" };
}

export async function healthRoutes(scope: FastifyInstance, options: { database: Database }): Promise<void> {
  scope.get("/health/live", (_request, reply) => reply.send({ status: "ok" }));
  const ready = async (_request: unknown, reply: Parameters<typeof fail>[0]) => {
    const state = await readiness(options.database);
    return state.kind === "ready" ? reply.send({ status: "ok" }) : fail(reply, 503, state.message);
  };
  scope.get("/health", ready);
  scope.get("/health/ready", ready);
}

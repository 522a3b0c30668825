// Data API stage: requests to a project's GraphQL endpoint (`/project/<ref>/graphql/v1`, or
// `/graphql/v1` on the host `<ref>.<domain>`) → one resolve call on that project's database,
// with its own keys and JWT secret, answered as the single-database server answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { OperationTypeNode } from "graphql";
import { identify } from "../../identity";
import { operationType, payloadFromBody, payloadFromSearch } from "../../payload";
import { replyWithOutcome } from "../../outcomeReply";
import type { ProjectPools } from "./projectPools";

export const projectPathPrefix = "/project/:ref";
const refHost = /^([a-z]{20})\./;
const schemas = ["public"];

function fail(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send({ message });
}

async function answer(pools: ProjectPools, ref: string, request: FastifyRequest, reply: FastifyReply, viaGet: boolean) {
  const entry = await pools.get(ref);
  if (!entry) return fail(reply, 404, `No project with ref ${ref}`);
  if (entry.project.status !== "ACTIVE_HEALTHY") {
    await pools.release(ref);
    return fail(reply, 503, `Project ${ref} is not available: its status is ${entry.project.status}`);
  }
  const identity = await identify(entry.keyring, request.headers);
  if (identity.kind === "refused") return fail(reply, 401, identity.message);
  const parsed = viaGet ? payloadFromSearch(request.query as Record<string, unknown>) : payloadFromBody(request.body);
  if (parsed.kind === "malformed") return fail(reply, 400, parsed.message);
  if (viaGet && operationType(parsed.payload) === OperationTypeNode.MUTATION) {
    return fail(reply.header("allow", "POST"), 405, "Mutations are accepted only over POST");
  }
  const outcome = await entry.database.resolve(identity.role, identity.claims, schemas, parsed.payload);
  if (outcome.kind !== "unavailable") return replyWithOutcome(request, reply, outcome);
  // Paused or removed by another process, or the server is down: look again next time.
  await pools.release(ref);
  const now = await pools.get(ref).catch(() => undefined);
  const why = now === undefined ? "it no longer exists" : now.project.status === "INACTIVE" ? "it is paused" : "its database does not answer";
  return fail(reply, 503, `Project ${ref} is not available: ${why}`);
}

export function registerProjectGraphql(fastify: FastifyInstance, pools: ProjectPools): void {
  const byPath = (viaGet: boolean) => (request: FastifyRequest, reply: FastifyReply) =>
    answer(pools, (request.params as { ref: string }).ref, request, reply, viaGet);
  const byHost = (viaGet: boolean) => (request: FastifyRequest, reply: FastifyReply) =>
    answer(pools, refHost.exec(request.hostname)![1]!, request, reply, viaGet);
  const path = `${projectPathPrefix}/graphql/v1`;
  fastify.post(path, byPath(false));
  fastify.get(path, byPath(true));
  // Constrained routes win over the single-database /graphql/v1 for project hosts only.
  fastify.post("/graphql/v1", { constraints: { host: refHost } }, byHost(false));
  fastify.get("/graphql/v1", { constraints: { host: refHost } }, byHost(true));
}

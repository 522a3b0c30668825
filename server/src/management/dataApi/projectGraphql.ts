// Data API stage: requests to a project's GraphQL endpoint (`/project/<ref>/graphql/v1`, or
// `/graphql/v1` on the host `<ref>.<domain>`) → one resolve call on that project's database,
// with its own keys and JWT secret, answered as the single-database server answers. The project's
// settings decide the search path, refuse mutations in read-only mode, and turn away addresses
// outside its network restrictions or banned after repeated failed authentication.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { acceptJsonAsText, answerGraphql, type Resolving } from "../../graphqlRoutes";
import { fail } from "../../httpErrors";
import { identify } from "../../identity";
import { payloadFromBody, payloadFromSearch } from "../../payload";
import type { NetworkBans } from "../access/networkBans";
import { clientAddress } from "../access/networkRestrictions";
import type { ProjectEntry, ProjectPools } from "./projectPools";

export const projectPathPrefix = "/project/:ref";
export const refHost = /^([a-z]{20})\./;

interface ProjectGraphqlOptions {
  pools: ProjectPools;
  bans: NetworkBans;
  /** Addresses whose failed authentications never ban them (the demo's loopback). */
  banExempt?: (address: string) => boolean;
}

/** Why a banned address is refused, and how the ban ends or is lifted. */
export function bannedMessage(address: string, ref: string, until: number, bans: Pick<NetworkBans, "failuresToBan">): string {
  return (
    `${address} is banned from project ${ref} until ${new Date(until).toISOString()} after repeated failed authentication ` +
    `(${bans.failuresToBan} requests with a wrong apikey or token within 10 minutes); while banned, even a right key is refused. ` +
    `Lift it with DELETE /v1/projects/${ref}/network-bans {"ipv4_addresses": ["${address}"]}`
  );
}

/** The entry's database; when its pool was closed while the request held it (a settings change
 * here or in another process reopened it), the statement runs on the reopened pool instead. */
function projectDatabase(pools: ProjectPools, ref: string, entry: ProjectEntry): Resolving {
  return {
    async resolve(...args) {
      const outcome = await entry.database.resolve(...args);
      if (outcome.kind !== "unavailable" || !entry.released) return outcome;
      const reopened = await pools.get(ref).catch(() => undefined);
      return reopened ? reopened.database.resolve(...args) : outcome;
    },
  };
}

async function answer({ pools, bans, banExempt }: ProjectGraphqlOptions, ref: string, request: FastifyRequest, reply: FastifyReply, viaGet: boolean) {
  const entry = await pools.get(ref);
  if (!entry) return fail(reply, 404, `No project with ref ${ref}`);
  if (entry.project.status !== "ACTIVE_HEALTHY") {
    await pools.release(ref);
    return fail(reply, 503, `Project ${ref} is not available: its status is ${entry.project.status}`);
  }
  const address = clientAddress(request.ip);
  if (!entry.tuning.allows(address)) {
    return fail(reply, 403, `The project's network restrictions do not allow requests from ${address}`);
  }
  const bannedUntil = bans.bannedUntil(ref, address);
  if (bannedUntil !== undefined) return fail(reply, 403, bannedMessage(address, ref, bannedUntil, bans));
  const identity = await identify(await pools.authenticator(entry), request.headers);
  if (identity.kind === "refused") {
    if (!banExempt?.(address)) await bans.recordFailure(ref, address);
    return fail(reply, 401, identity.message);
  }
  request.graphqlIdentity = identity;
  const depth = pools.settings.limits.maxVariablesDepth;
  const parsed = viaGet
    ? payloadFromSearch(request.query as Record<string, unknown>, depth)
    : payloadFromBody(request.body as string, depth);
  const refused = entry.tuning.mutationsRefused();
  const target = {
    database: projectDatabase(pools, ref, entry),
    schemas: entry.tuning.schemas,
    limits: pools.settings.limits,
    ...(refused ? { mutationsRefused: refused } : {}),
    // Paused or removed by another process, or its server is down: look again, now and next time.
    unavailable: async () => {
      await pools.release(ref);
      const now = await pools.get(ref).catch(() => undefined);
      const why = now === undefined ? "it no longer exists" : now.project.status === "INACTIVE" ? "it is paused" : "its database does not answer";
      return `Project ${ref} is not available: ${why}`;
    },
  };
  return answerGraphql(target, identity, request, reply, parsed, viaGet);
}

export async function registerProjectGraphql(fastify: FastifyInstance, options: ProjectGraphqlOptions): Promise<void> {
  acceptJsonAsText(fastify);
  // Who the request ran as, for the request log (the same field the single-database routes use).
  if (!fastify.hasRequestDecorator("graphqlIdentity")) fastify.decorateRequest("graphqlIdentity", undefined);
  const byPath = (viaGet: boolean) => (request: FastifyRequest, reply: FastifyReply) =>
    answer(options, (request.params as { ref: string }).ref, request, reply, viaGet);
  const byHost = (viaGet: boolean) => (request: FastifyRequest, reply: FastifyReply) =>
    answer(options, refHost.exec(request.hostname)![1]!, request, reply, viaGet);
  const path = `${projectPathPrefix}/graphql/v1`;
  fastify.post(path, byPath(false));
  fastify.get(path, byPath(true));
  // Constrained routes win over the single-database /graphql/v1 for project hosts only.
  fastify.post("/graphql/v1", { constraints: { host: refHost } }, byHost(false));
  fastify.get("/graphql/v1", { constraints: { host: refHost } }, byHost(true));
}

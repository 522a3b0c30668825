// Data API stage: a project's JWKS document (`/project/<ref>/auth/v1/.well-known/jwks.json`, or
// the same path on the host `<ref>.<domain>`): the public keys of its asymmetric signing keys in
// use, on standby (published ahead of a rotation) and previously used; never revoked ones.
import type { FastifyInstance, FastifyReply } from "fastify";
import { fail } from "../../httpErrors";
import type { Services } from "../services";
import { SigningKeyStore } from "../keys/signingKeyStore";
import { projectPathPrefix, refHost } from "./projectGraphql";

const jwksPath = "/auth/v1/.well-known/jwks.json";

async function answer(services: Services, ref: string, reply: FastifyReply) {
  const project = await services.projects.byRef(ref);
  if (!project || project.status === "GOING_DOWN") return fail(reply, 404, `No project with ref ${ref}`);
  const keys = await services.stores.signingKeys.list(project.id);
  const published = keys.filter((k) => k.status !== "revoked" && k.public_jwk !== null).map((k) => k.public_jwk);
  // Verifiers cache the document; a short lifetime lets a rotation reach them soon.
  return reply.header("cache-control", "public, max-age=60").send({ keys: published });
}

export async function registerProjectJwks(fastify: FastifyInstance, options: { services: Services }): Promise<void> {
  const { services } = options;
  fastify.get(`${projectPathPrefix}${jwksPath}`, (request, reply) => answer(services, (request.params as { ref: string }).ref, reply));
  fastify.get(jwksPath, { constraints: { host: refHost } }, (request, reply) => answer(services, refHost.exec(request.hostname)![1]!, reply));
}

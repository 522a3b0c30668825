// HTTP stage: the one shape of every refusal the server answers itself: `{"message": "..."}`.
import type { FastifyReply } from "fastify";

export function fail(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send({ message });
}

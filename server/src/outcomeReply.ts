// HTTP stage: a resolve outcome → the answer sent, the same for the single database and for
// every project's endpoint. The resolver's JSON text goes out as it came from the database.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Outcome } from "./database";
import { unreachable } from "../../src/util/invariant";

export function replyWithOutcome(request: FastifyRequest, reply: FastifyReply, outcome: Outcome): FastifyReply {
  const fail = (status: number, message: string) => reply.code(status).type("application/json; charset=utf-8").send({ message });
  switch (outcome.kind) {
    case "result":
      return reply.code(200).type("application/json; charset=utf-8").send(outcome.body);
    case "rejected":
      return reply.code(200).send({ data: null, errors: [{ message: outcome.message }] });
    case "failed":
      request.log.error({ code: outcome.code, message: outcome.message }, "resolve failed");
      return fail(500, "Internal server error");
    case "unavailable":
      request.log.error({ message: outcome.message }, "database unavailable");
      return fail(503, "The database is unavailable");
    default:
      return unreachable(outcome, "outcome");
  }
}

// Observability: the log settings → JSON lines (pino, through Fastify) where each request carries
// an id that the response echoes in `x-request-id`. Nothing secret is written: headers are not
// logged (API keys, JWTs), URLs lose their query string (GET variables), bodies are never logged.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";

export const requestIdHeader = "x-request-id";
// An id a proxy in front already gave the request is kept, if it looks like an id.
const acceptableId = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestId(request: IncomingMessage): string {
  const given = request.headers[requestIdHeader];
  return typeof given === "string" && acceptableId.test(given) ? given : randomUUID();
}

/** An onRequest hook (callback style: no promise per request). */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  reply.header(requestIdHeader, request.id);
  done();
}

export function loggerOptions(level: string) {
  return {
    level,
    serializers: {
      req(request: FastifyRequest) {
        return { method: request.method, path: request.url.split("?")[0], remoteAddress: request.ip };
      },
    },
  };
}

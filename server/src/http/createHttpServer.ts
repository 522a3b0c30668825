// HTTP stage: the server's settings → the one Fastify instance every mode serves from: JSON logs
// with a request id each answer echoes, CORS, the `{"message"}` shape of errors and 404s,
// `/metrics`, and a close that drains. What it serves (the single database's data API, the
// Management API, the dashboard) is registered on it as encapsulated plugins.
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import cors from "@fastify/cors";
import type { ServerConfig } from "../config";
import { drainingClose } from "../drain";
import { fail } from "../httpErrors";
import { echoRequestId, loggerOptions, requestId } from "../logging";
import { metricsRoute } from "../metrics";

export type HttpSettings = Pick<ServerConfig, "host" | "port" | "logLevel" | "bodyLimit" | "corsOrigins" | "trustProxy">;

export interface HttpServer {
  fastify: FastifyInstance;
  /** Listens on the configured address; resolves with the base URL of the bound one. */
  listen(): Promise<string>;
  /** Stops accepting requests and lets those in flight finish (for `drainMs` at most); the
   * plugins' onClose hooks then close what they opened. Safe to call more than once. */
  close(): Promise<void>;
}

/** The configured proxies as Fastify takes them (a hop count as the function of its hops). */
export function trustProxyOption(trust: ServerConfig["trustProxy"]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === "number" ? (_address, hop) => hop < trust : trust;
}

export function createHttpServer(settings: HttpSettings, options: { drainMs?: number } = {}): HttpServer {
  const fastify = Fastify({
    logger: loggerOptions(settings.logLevel),
    genReqId: requestId,
    bodyLimit: settings.bodyLimit,
    trustProxy: trustProxyOption(settings.trustProxy),
    return503OnClosing: true,
    forceCloseConnections: "idle",
  });
  fastify.addHook("onRequest", echoRequestId);
  const closeFastify = drainingClose(fastify, options.drainMs);
  // Only routes that name text/plain (function sources) read it: they add their own parser.
  fastify.removeContentTypeParser("text/plain");

  // Registered before `ready`, awaited by it: the plugins after it are queued behind it.
  void fastify.register(cors, {
    origin: settings.corsOrigins === "*" ? "*" : settings.corsOrigins,
    methods: ["GET", "HEAD", "POST", "OPTIONS"],
    allowedHeaders: ["apikey", "authorization", "content-type", "x-client-info"],
    maxAge: 600,
  });
  fastify.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, "request failed");
      return fail(reply, status, "Internal server error");
    }
    return fail(reply, status, error.message);
  });
  fastify.setNotFoundHandler((request, reply) => fail(reply, 404, `Not found: ${request.method} ${request.url.split("?")[0]}`));
  void fastify.register(metricsRoute);

  let closing: Promise<void> | undefined;
  // Answers sent while closing end their keep-alive connection, so the close need not wait for
  // idle clients to time out.
  fastify.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });
  return {
    fastify,
    async listen() {
      await fastify.listen({ host: settings.host, port: settings.port });
      const address = fastify.server.address() as AddressInfo;
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      return `http://${host}:${address.port}`;
    },
    close() {
      // A signal and an owner may both ask; what the plugins opened must be closed once.
      closing ??= closeFastify();
      return closing;
    },
  };
}

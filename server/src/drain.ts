// Server lifecycle: a Fastify app → a close that waits for the requests in flight, then closes
// every connection left open. Kept-alive connections otherwise hold the close until their
// timeout, and one whose client left mid-request may never count as idle.
import type { FastifyInstance } from "fastify";

export function drainingClose(fastify: FastifyInstance): () => Promise<void> {
  let inFlight = 0;
  let closing = false;
  const closeLeftovers = () => {
    if (closing && inFlight === 0) fastify.server.closeAllConnections();
  };
  const onClose = () => {
    inFlight -= 1;
    closeLeftovers();
  };
  fastify.addHook("onRequest", (_request, reply, done) => {
    inFlight += 1;
    // `close` fires once per response, whether it finished or its client went away (so `on`,
    // without the wrapper `once` makes per request).
    reply.raw.on("close", onClose);
    done();
  });
  return () => {
    closing = true;
    const closed = fastify.close();
    closeLeftovers();
    return closed;
  };
}

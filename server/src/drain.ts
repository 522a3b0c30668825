// Server lifecycle: a Fastify app → a close that waits for the requests in flight, then closes
// every connection left open. Kept-alive connections otherwise hold the close until their
// timeout, and one whose client left mid-request may never count as idle. Past a deadline the
// requests still running lose their connections, so a stop ends whatever stuck work does.
import type { FastifyInstance } from "fastify";

/** The longest a stop waits for requests in flight (a project operation queued for its turn, a
 * statement) before it closes their connections anyway. */
export const defaultDrainMs = 30_000;

/** How long the close waits, past the deadline, for what the app closes after its requests. */
const afterDeadlineMs = 5000;

export function drainingClose(fastify: FastifyInstance, drainMs = defaultDrainMs): () => Promise<void> {
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
  return async () => {
    closing = true;
    const closed = fastify.close();
    closeLeftovers();
    if ((await within(closed, drainMs)) === "done") return;
    fastify.log.warn(`requests still running ${drainMs} ms after the stop began: their connections are closed`);
    fastify.server.closeAllConnections();
    await within(closed, afterDeadlineMs);
  };
}

/** Resolves with "late" after `ms`, unless `done` settles first. */
async function within(done: Promise<void>, ms: number): Promise<"done" | "late"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
    timer.unref();
  });
  const outcome = await Promise.race([done.then(() => "done" as const), late]);
  clearTimeout(timer);
  return outcome;
}

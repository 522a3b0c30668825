// Test support for the hostile-tenant suite: real servers on 127.0.0.1 standing in for what a
// tenant points the platform at (an internal service, a redirector, an endless or slow answer),
// each counting what reached it, and a resolver whose records the test writes.
import { lookup as dnsLookup } from "node:dns/promises";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server } from "node:net";
import type { HostLookup } from "../../server/src/management/outbound/tenantUrls";

export interface Listening {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<Listening> {
  let accepted = 0;
  server.on("connection", () => (accepted += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP server on 127.0.0.1 answering with `handler`; `base` is its http URL. */
export async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Listening & { base: string }> {
  const listening = await listen(createHttpServer(handler));
  return { ...listening, base: `http://127.0.0.1:${listening.port}` };
}

/** A TCP port on 127.0.0.1 that counts connections and hangs up on each at once. */
export async function hangingUpPort(): Promise<Listening> {
  return listen(createTcpServer((socket) => socket.destroy()));
}

/** A port on 127.0.0.1 nothing listens on (it did a moment ago). */
export async function closedPort(): Promise<number> {
  const listening = await listen(createTcpServer());
  await listening.close();
  return listening.port;
}

/** A resolver with the test's own records; any other name goes to the system's resolver.
 * A record is a list of answers, one per lookup in turn (the last one repeats). */
export function testResolver(records: Record<string, string[][]>): { lookup: HostLookup; lookups(name: string): number } {
  const counts = new Map<string, number>();
  return {
    lookup: async (hostname) => {
      const answers = records[hostname];
      if (answers === undefined) return dnsLookup(hostname, { all: true });
      const n = counts.get(hostname) ?? 0;
      counts.set(hostname, n + 1);
      return answers[Math.min(n, answers.length - 1)]!.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    },
    lookups: (name) => counts.get(name) ?? 0,
  };
}

/** An answer that never ends: 64 KiB chunks for as long as the client reads; `sent()` counts bytes. */
export function endlessBody(): { handler: (req: IncomingMessage, res: ServerResponse) => void; sent(): number } {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, "x");
  return {
    handler: (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const pump = () => {
        let more = true;
        while (more && !res.destroyed) {
          more = res.write(chunk);
          sent += chunk.length;
        }
      };
      res.on("drain", pump);
      pump();
    },
    sent: () => sent,
  };
}

/** An answer that never completes: headers, then one byte every 50 ms until the client leaves. */
export function tricklingBody(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json" });
  const timer = setInterval(() => res.write(" "), 50);
  req.socket.on("close", () => clearInterval(timer));
}

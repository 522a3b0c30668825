// Execute stage (server side): a pooled connection → a PostgreSQL cancel request for the
// statement it is running, sent on a connection of its own as the protocol prescribes (it works
// through pgbouncer too, which routes it to the right server connection).
import { connect, type Socket } from "node:net";
import type pg from "pg";

const cancelRequestCode = 80877102;
// A cancel the server never acknowledges must not hold the request forever.
const cancelWaitMs = 2000;

interface BackendKey {
  processID: number | null;
  secretKey: number | null;
  host: string;
  port: number;
}

/** Resolves once the server has read the request and closed the connection (or on failure). */
export function sendCancel(client: pg.PoolClient): Promise<void> {
  const key = client as unknown as BackendKey;
  if (key.processID === null || key.secretKey === null) return Promise.resolve();
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(cancelRequestCode, 4);
  packet.writeInt32BE(key.processID, 8);
  packet.writeInt32BE(key.secretKey, 12);
  return new Promise((resolve) => {
    const socket: Socket = key.host.startsWith("/")
      ? connect(`${key.host}/.s.PGSQL.${key.port}`)
      : connect(key.port, key.host);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, cancelWaitMs);
    // Written without ending our side: the server closes the connection once it has read the
    // request (pgbouncer 1.18 dies on a cancel connection the client half-closes first).
    socket.once("connect", () => socket.write(packet));
    socket.once("close", done);
    socket.once("error", done);
  });
}

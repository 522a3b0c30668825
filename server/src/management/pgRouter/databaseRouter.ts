// Router stage: PostgreSQL client connections whose user is `<role>.<ref>` (what the supabase CLI
// sends to a pooler, with the database always `postgres`) → the project's server and database,
// as `<role>`. Only the startup packet is read and rewritten; authentication and everything after
// pass through untouched, so PostgreSQL itself checks the password. Cancel requests reach the
// server of the session they name.
import { connect, createServer, type Server, type Socket } from "node:net";

export interface RouteTarget {
  /** A host name, or a socket folder (starting with `/`). */
  host: string;
  port: number;
  database: string;
}

/** The project's target, or undefined when there is no such project. */
export type ResolveProject = (ref: string) => Promise<RouteTarget | undefined>;

const sslRequest = 80877103;
const gssRequest = 80877104;
const cancelRequest = 80877102;
const protocol3 = 196608;

/** Reads whole length-prefixed packets from a socket. */
class PacketReader {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended = false;

  constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    socket.on("close", () => {
      this.ended = true;
      this.waiting?.();
    });
  }

  async take(size: number): Promise<Buffer | undefined> {
    while (this.buffer.length < size) {
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
    const out = this.buffer.subarray(0, size);
    this.buffer = this.buffer.subarray(size);
    return out;
  }

  /** An untyped packet (startup, SSL, cancel): int32 length including itself, then the body. */
  async packet(): Promise<Buffer | undefined> {
    const head = await this.take(4);
    if (!head) return undefined;
    const length = head.readInt32BE(0);
    if (length < 8 || length > 10_000) return undefined;
    return this.take(length - 4);
  }

  /** What was read past the last packet (sent on as it is). */
  rest(): Buffer {
    this.socket.removeAllListeners("data");
    return this.buffer;
  }
}

function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, "utf8");
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

function startupParameters(body: Buffer): Map<string, string> {
  const parts = body.subarray(4).toString("utf8").split("\0");
  const params = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2) params.set(parts[i]!, parts[i + 1]!);
  return params;
}

function startupPacket(params: Map<string, string>): Buffer {
  const body = Buffer.from([...params].map(([k, v]) => `${k}\0${v}\0`).join("") + "\0", "utf8");
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(protocol3, 4);
  return Buffer.concat([head, body]);
}

function dial(target: RouteTarget): Socket {
  return target.host.startsWith("/") ? connect(`${target.host}/.s.PGSQL.${target.port}`) : connect(target.port, target.host);
}

/** Sessions the router passes to one project, and to all projects together. */
export interface RouterCaps {
  perProject: number;
  total: number;
}

export class DatabaseRouter {
  private readonly server: Server;
  /** Backend key (pid:secret) → the target that session runs on, for cancel requests. */
  private readonly sessions = new Map<string, RouteTarget>();
  private readonly open = new Set<Socket>();
  /** Routed sessions per project ref. */
  private readonly routed = new Map<string, number>();
  private routedTotal = 0;

  constructor(
    private readonly resolve: ResolveProject,
    private readonly caps: RouterCaps = { perProject: 20, total: 200 },
    private readonly holds?: { until(ref: string): Promise<void> | undefined },
  ) {
    this.server = createServer((client) => {
      this.open.add(client);
      client.on("close", () => this.open.delete(client));
      client.on("error", () => {});
      this.accept(client).catch(() => client.destroy());
    });
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => resolve((this.server.address() as { port: number }).port));
    });
  }

  /** Stops listening and ends the routed connections. */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.open) socket.destroy();
    return closed;
  }

  private async accept(client: Socket): Promise<void> {
    const reader = new PacketReader(client);
    for (;;) {
      const body = await reader.packet();
      if (!body) return void client.destroy();
      const code = body.readInt32BE(0);
      if (code === sslRequest || code === gssRequest) {
        client.write("N");
        continue;
      }
      if (code === cancelRequest) return this.cancel(client, body);
      if (code !== protocol3) return void client.end(errorResponse("08P01", "unsupported frontend protocol"));
      return this.route(client, reader, startupParameters(body));
    }
  }

  private cancel(client: Socket, body: Buffer): void {
    client.destroy();
    const target = this.sessions.get(`${body.readInt32BE(4)}:${body.readInt32BE(8)}`);
    if (!target) return;
    const packet = Buffer.concat([Buffer.from([0, 0, 0, 16]), body]);
    const server = dial(target);
    server.on("error", () => {});
    server.once("connect", () => server.end(packet));
  }

  private async route(client: Socket, reader: PacketReader, params: Map<string, string>): Promise<void> {
    const user = params.get("user") ?? "";
    const dot = user.lastIndexOf(".");
    const role = user.slice(0, dot);
    const ref = user.slice(dot + 1);
    if (dot <= 0 || !/^[a-z]{20}$/.test(ref)) {
      return void client.end(errorResponse("28000", `the user must be <role>.<project ref>, not "${user}"`));
    }
    // A branch copying the project's database holds its new sessions for a moment.
    await this.holds?.until(ref);
    const target = await this.resolve(ref);
    // Only the project's own roles: a name of another project or of the cluster is not routed.
    if (!target || !role.startsWith(`${ref}_`)) {
      return void client.end(errorResponse("28000", `no project "${ref}" with a role "${role}"`));
    }
    // One tenant cannot take the server's connections from the others (PostgreSQL also caps
    // each tenant login and each project database).
    if (client.destroyed) return;
    const held = this.routed.get(ref) ?? 0;
    if (held >= this.caps.perProject) {
      return void client.end(errorResponse("53300", `too many connections for project "${ref}": the router passes at most ${this.caps.perProject} at a time`));
    }
    if (this.routedTotal >= this.caps.total) {
      return void client.end(errorResponse("53300", `too many connections: the router passes at most ${this.caps.total} at a time`));
    }
    this.routed.set(ref, held + 1);
    this.routedTotal += 1;
    client.once("close", () => {
      const left = (this.routed.get(ref) ?? 1) - 1;
      if (left > 0) this.routed.set(ref, left);
      else this.routed.delete(ref);
      this.routedTotal -= 1;
    });
    params.set("user", role);
    params.set("database", target.database);
    const server = dial(target);
    server.on("error", () => client.destroy());
    client.on("close", () => server.destroy());
    server.once("connect", () => {
      server.write(startupPacket(params));
      const early = reader.rest();
      if (early.length > 0) server.write(early);
      client.pipe(server);
      this.relay(server, client, target);
    });
  }

  /** Server → client, watching the messages until the session is ready for its backend key. */
  private relay(server: Socket, client: Socket, target: RouteTarget): void {
    let pending = Buffer.alloc(0);
    let key: string | undefined;
    const watch = (chunk: Buffer) => {
      client.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
        const type = String.fromCharCode(pending[0]!);
        const length = pending.readInt32BE(1);
        if (type === "K") {
          key = `${pending.readInt32BE(5)}:${pending.readInt32BE(9)}`;
          this.sessions.set(key, target);
        }
        pending = pending.subarray(1 + length);
        if (type === "Z" || type === "E") {
          server.off("data", watch);
          server.pipe(client);
          return;
        }
      }
    };
    server.on("data", watch);
    server.on("close", () => {
      if (key) this.sessions.delete(key);
      client.destroy();
    });
  }
}

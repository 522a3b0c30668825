// Bench stage: engines. Input: the cluster, the bench database and what is installed. Output:
// the engines under test — HTTP servers started as child processes on loopback, and the
// pgbench-driven in-database runs — each with the same per-request role switch.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Dialect } from "./queries";
import { anonKey, benchJwtSecret, userToken } from "./jwt";

export const benchDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const repoDir = join(benchDir, "..");
const tsx = join(benchDir, "node_modules", ".bin", "tsx");

export type EngineId = "sql" | "resolve" | "httpFloor" | "ours" | "postgraphile4" | "postgraphile5" | "postgraphile5Filter";

export interface HttpEngine {
  kind: "http";
  id: EngineId;
  label: string;
  /** `floor` bodies name a bench query; the others carry GraphQL in their engine's dialect. */
  dialect: Dialect | "floor";
  url: string;
  headers: Record<string, string>;
  /** The engine's process group (its launcher and whatever that spawned), for reading its CPU time. */
  processGroup: number;
  stop(): Promise<void>;
  /** Immediate and synchronous, for the watchdog. */
  kill(): void;
}

export interface PgbenchEngine {
  kind: "pgbench";
  id: EngineId;
  label: string;
  dialect: Dialect | "floor";
}

export type Engine = HttpEngine | PgbenchEngine;

export const engineLabels: Record<EngineId, string> = {
  sql: "SQL floor (pgbench)",
  resolve: "graphql.resolve (pgbench)",
  httpFloor: "HTTP floor (node + pg)",
  ours: "pg_graphql server",
  postgraphile4: "PostGraphile v4",
  postgraphile5: "PostGraphile v5",
  postgraphile5Filter: "PostGraphile v5 + connection-filter",
};

const authHeaders = (): Record<string, string> => ({ apikey: anonKey(), authorization: `Bearer ${userToken()}` });

interface Launch {
  id: EngineId;
  dialect: Dialect | "floor";
  command: string;
  args: string[];
  env: Record<string, string>;
  port: number;
  path: string;
  probe: string;
}

/** A server process of the bench's own, in a process group of its own. */
export interface ServerProcess {
  processGroup: number;
  stop(): Promise<void>;
  /** Immediate and synchronous, for the watchdog. */
  kill(): void;
}

/**
 * Starts `command` and waits (60 s at most) until `ready` answers true; `ready` is asked about
 * every 200 ms and may throw while the server is not listening yet.
 */
export async function startServerProcess(command: string, args: string[], env: Record<string, string>, ready: () => Promise<boolean>): Promise<ServerProcess> {
  // A process group of its own, so that stopping the server also stops what its launcher spawned.
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // The group is already gone.
    }
  };
  let output = "";
  const keep = (d: Buffer) => {
    output = (output + d.toString("utf8")).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  // A bench that ends any other way (an error, the watchdog) leaves no server behind.
  process.once("exit", () => signal("SIGKILL"));
  try {
    await waitUntilReady(ready, child, () => output);
  } catch (e) {
    signal("SIGKILL");
    throw e;
  }
  return {
    processGroup: child.pid!,
    kill: () => signal("SIGKILL"),
    stop: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => signal("SIGKILL"), 5_000);
        const done = () => {
          clearTimeout(timer);
          // Whatever the launcher left behind goes too.
          signal("SIGKILL");
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", done);
        signal("SIGTERM");
      }),
  };
}

async function waitUntilReady(ready: () => Promise<boolean>, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${log()}`);
    try {
      if (await ready()) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not become ready within 60 s:\n${log()}`);
}

async function launch(l: Launch): Promise<HttpEngine> {
  const url = `http://127.0.0.1:${l.port}${l.path}`;
  const headers = authHeaders();
  const answers = async () =>
    (await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: l.probe })).status === 200;
  const server = await startServerProcess(l.command, l.args, l.env, answers);
  return { kind: "http", id: l.id, label: engineLabels[l.id], dialect: l.dialect, url, headers, ...server };
}

const typenameProbe = JSON.stringify({ query: "{ __typename }" });

/** `nodeArgs` (e.g. `--cpu-prof`) go to the Node process that runs the engine. */
export function startHttpFloor(databaseUrl: string, port: number, claims: string, nodeArgs: string[] = []): Promise<HttpEngine> {
  return launch({
    id: "httpFloor",
    dialect: "floor",
    command: tsx,
    args: [...nodeArgs, join(benchDir, "src", "floorServer.ts")],
    env: { DATABASE_URL: databaseUrl, PORT: String(port), JWT_CLAIMS: claims, POOL_SIZE: "8" },
    port,
    path: "/graphql",
    probe: JSON.stringify({ query: "count" }),
  });
}

/** `connectionFilter`: v5 with postgraphile-plugin-connection-filter, relation filters on. */
export function startPostgraphile(version: 4 | 5, databaseUrl: string, port: number, connectionFilter = false): Promise<HttpEngine> {
  return launch({
    id: version === 4 ? "postgraphile4" : connectionFilter ? "postgraphile5Filter" : "postgraphile5",
    dialect: version === 4 ? "postgraphile4" : "postgraphile5",
    command: tsx,
    args: [join(benchDir, "engines", `postgraphile${version}`, "server.ts")],
    env: {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      JWT_SECRET: benchJwtSecret,
      POOL_SIZE: "8",
      NODE_ENV: "production",
      ...(connectionFilter ? { CONNECTION_FILTER: "1" } : {}),
    },
    port,
    path: "/graphql",
    probe: typenameProbe,
  });
}

/** Our HTTP server, when the repo has built it (`server/dist`). */
export function oursServerAvailable(): boolean {
  return existsSync(join(repoDir, "server", "dist", "main.mjs"));
}

/** `entry` may name another build's bundle (`.../dist/main.mjs`), to compare two builds. */
export function startOurs(databaseUrl: string, port: number, nodeArgs: string[] = [], entry = join(repoDir, "server", "bin.js")): Promise<HttpEngine> {
  return launch({
    id: "ours",
    dialect: "pg_graphql",
    command: process.execPath,
    args: [
      ...nodeArgs,
      entry,
      "start",
      "--database-url", databaseUrl,
      "--port", String(port),
      "--host", "127.0.0.1",
      "--jwt-secret", benchJwtSecret,
      "--pool-size", "8",
      "--log-level", "warn",
    ],
    env: {},
    port,
    path: "/graphql/v1",
    probe: typenameProbe,
  });
}

// Test infrastructure: starts a throwaway PostgreSQL 15 cluster (initdb into a temp dir, Unix
// socket only) and removes it. As root, the server runs as the `postgres` system user.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ClusterInfo {
  /** Unix socket directory, usable as PGHOST. */
  host: string;
  port: number;
  dataDir: string;
  logFile: string;
  bindir: string;
  /** The OS user the server runs as; tests connect as the `postgres` database superuser. */
  user: string;
}

export interface ClusterOptions {
  /** Extra `postgresql.conf` settings. */
  settings?: Record<string, string>;
  /** The port (default 5432: only the socket's name, while the server does not listen on TCP). */
  port?: number;
  /** Runs after initdb, before the first start (e.g. to write pg_hba.conf or certificates). */
  prepare?: (dataDir: string) => void;
}

export const clusterDefaults: Record<string, string> = {
  listen_addresses: "''",
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  max_connections: "200",
  // plv8 preloaded as a production server would have it: its _PG_init runs in the postmaster,
  // which must not start V8 (each backend starts its own on first use).
  shared_preload_libraries: "'pg_stat_statements,plv8'",
  "pg_stat_statements.track": "all",
  log_min_messages: "warning",
  timezone: "'UTC'",
};

export function pgBindir(): string {
  const out = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  if (out.status !== 0) throw new Error("pg_config not found: run `make deps` first");
  return out.stdout.trim();
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

export function asServer(bin: string, args: string[]): string {
  const [cmd, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  return execFileSync(cmd, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function postgresUid(): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/** Writes a file the server's OS user owns (a private one when `mode` is 0o600). */
export function writeServerFile(path: string, text: string, mode = 0o644): void {
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  if (isRoot) {
    const { uid, gid } = postgresUid();
    chownSync(path, uid, gid);
  }
}

/** A temp folder the server's OS user owns. */
export function serverFolder(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(root, 0o755);
  if (isRoot) {
    const { uid, gid } = postgresUid();
    chownSync(root, uid, gid);
  }
  return root;
}

export function startCluster(options: ClusterOptions = {}): ClusterInfo {
  const bindir = pgBindir();
  const root = serverFolder("pg-graphql-test-");
  const dataDir = join(root, "data");
  asServer(join(bindir, "initdb"), ["-D", dataDir, "--no-locale", "-E", "UTF8", "-U", "postgres", "-A", "trust", "--nosync"]);
  options.prepare?.(dataDir);
  return startDataDir(root, dataDir, options);
}

/** Starts the server of an existing data folder, its socket and log in `root`. */
export function startDataDir(root: string, dataDir: string, options: ClusterOptions = {}): ClusterInfo {
  const bindir = pgBindir();
  const logFile = join(root, "server.log");
  const port = options.port ?? 5432;
  const settings = { ...clusterDefaults, unix_socket_directories: `'${root}'`, port: String(port), ...options.settings };
  const opts = Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`).join(" ");
  asServer(join(bindir, "pg_ctl"), ["-D", dataDir, "-l", logFile, "-w", "-t", "60", "-o", opts, "start"]);
  return { host: root, port, dataDir, logFile, bindir, user: isRoot ? "postgres" : (process.env.USER ?? "postgres") };
}

/** Lines of the server log that show a backend killed by a signal (a crash). */
export function crashLines(info: ClusterInfo): string[] {
  if (!existsSync(info.logFile)) return [];
  return readFileSync(info.logFile, "utf8").split("\n").filter((l) => l.includes("terminated by signal"));
}

export function stopCluster(info: ClusterInfo): void {
  try {
    asServer(join(info.bindir, "pg_ctl"), ["-D", info.dataDir, "-m", "immediate", "-w", "stop"]);
  } catch {
    // Already stopped: removing the directory is all that is left to do.
  }
  rmSync(info.host, { recursive: true, force: true });
}

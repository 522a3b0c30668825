// Bench stage: environment. Input: nothing but `pg_config` on PATH. Output: a throwaway
// PostgreSQL 15 cluster on a Unix socket in a temp dir, with pg_stat_statements preloaded.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Cluster {
  /** Unix socket directory (PGHOST). */
  host: string;
  port: number;
  root: string;
  dataDir: string;
  logFile: string;
  bindir: string;
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

export function pgBindir(): string {
  const out = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  if (out.status !== 0) throw new Error("pg_config not found on PATH");
  return out.stdout.trim();
}

function asServerUser(bin: string, args: string[]): string {
  // initdb refuses to run as root, so the server belongs to the `postgres` system user.
  const [cmd, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  return execFileSync(cmd, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

export function startCluster(settings: Record<string, string> = {}): Cluster {
  const bindir = pgBindir();
  const root = mkdtempSync(join(tmpdir(), "pg-graphql-bench-"));
  chmodSync(root, 0o755);
  if (isRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(root, uid, gid);
  }
  const dataDir = join(root, "data");
  const logFile = join(root, "server.log");
  const port = 5432;
  asServerUser(join(bindir, "initdb"), ["-D", dataDir, "--no-locale", "-E", "UTF8", "-U", "postgres", "-A", "trust", "--nosync"]);
  const conf: Record<string, string> = {
    listen_addresses: "''",
    unix_socket_directories: `'${root}'`,
    port: String(port),
    max_connections: "100",
    shared_buffers: "256MB",
    // Durability is not what is measured; the same settings apply to every engine.
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    // plv8 preloaded as the README advises for production: new backends inherit the loaded
    // handler and libnode instead of loading them on their first call.
    shared_preload_libraries: "'pg_stat_statements,plv8'",
    "pg_stat_statements.track": "all",
    "pg_stat_statements.max": "10000",
    log_min_messages: "warning",
    timezone: "'UTC'",
    ...settings,
  };
  const opts = Object.entries(conf).map(([k, v]) => `-c ${k}=${v}`).join(" ");
  asServerUser(join(bindir, "pg_ctl"), ["-D", dataDir, "-l", logFile, "-w", "-t", "60", "-o", opts, "start"]);
  return { host: root, port, root, dataDir, logFile, bindir };
}

export function crashLines(c: Cluster): string[] {
  if (!existsSync(c.logFile)) return [];
  return readFileSync(c.logFile, "utf8").split("\n").filter((l) => l.includes("terminated by signal"));
}

export function stopCluster(c: Cluster): void {
  try {
    asServerUser(join(c.bindir, "pg_ctl"), ["-D", c.dataDir, "-m", "immediate", "-w", "stop"]);
  } catch {
    // Already stopped: removing the directory is what matters.
  }
  rmSync(c.root, { recursive: true, force: true });
}

export function connectionUrl(c: Cluster, database: string, user = "postgres"): string {
  return `postgresql://${encodeURIComponent(user)}@/${encodeURIComponent(database)}?host=${encodeURIComponent(c.host)}&port=${c.port}`;
}

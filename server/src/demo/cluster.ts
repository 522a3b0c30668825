// Demo stage: nothing → a throwaway PostgreSQL cluster in a temp folder (Unix socket only), and
// its removal. As root the server runs as the `postgres` system user, which initdb requires.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Cluster {
  root: string;
  socketDir: string;
  port: number;
  dataDir: string;
  bindir: string;
}

const isRoot = process.getuid?.() === 0;

function run(bin: string, args: string[]): void {
  const [cmd, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, { stdio: ["ignore", "pipe", "pipe"] });
}

export function startCluster(port = 5432): Cluster {
  const bindir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
  const root = mkdtempSync(join(tmpdir(), "pg-graphql-demo-"));
  chmodSync(root, 0o755);
  if (isRoot) {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    chownSync(root, id("-u"), id("-g"));
  }
  const dataDir = join(root, "data");
  const cluster = { root, socketDir: root, port, dataDir, bindir };
  try {
    run(join(bindir, "initdb"), ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--nosync"]);
    // plv8 preloaded: new pooled connections then skip loading libnode on their first request.
    const settings = `-c listen_addresses='' -c unix_socket_directories='${root}' -c port=${port} -c fsync=off -c shared_preload_libraries=plv8`;
    run(join(bindir, "pg_ctl"), ["-D", dataDir, "-l", join(root, "server.log"), "-w", "-t", "60", "-o", settings, "start"]);
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
  return cluster;
}

export function clusterUrl(cluster: Cluster, user = "postgres", database = "postgres"): string {
  return `postgresql://${user}@localhost/${database}?host=${encodeURIComponent(cluster.socketDir)}&port=${cluster.port}`;
}

export function removeCluster(cluster: Cluster): void {
  const pgCtl = join(cluster.bindir, "pg_ctl");
  try {
    run(pgCtl, ["-D", cluster.dataDir, "-m", "fast", "-w", "-t", "5", "stop"]);
  } catch {
    // A backend that does not finish exiting in time must not keep the demo (or its folder)
    // alive: the data is thrown away, so an immediate stop loses nothing.
    try {
      run(pgCtl, ["-D", cluster.dataDir, "-m", "immediate", "-w", "-t", "30", "stop"]);
    } catch {
      // Not running any more: removing the folder is all that is left.
    }
  }
  rmSync(cluster.root, { recursive: true, force: true });
}

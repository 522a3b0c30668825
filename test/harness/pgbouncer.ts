// Test infrastructure: a throwaway pgbouncer in transaction mode in front of the run's cluster,
// listening on a Unix socket in a temp folder, run as the cluster's (non-root) OS user.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClusterInfo } from "./cluster";
import { freePort } from "./tcpCluster";

export interface Pgbouncer {
  /** Unix socket directory, usable as the host of a connection string. */
  host: string;
  port: number;
  stop(): Promise<void>;
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
export const pgbouncerBinary = "/usr/sbin/pgbouncer";

export function hasPgbouncer(): boolean {
  return existsSync(pgbouncerBinary);
}

export async function startPgbouncer(cluster: ClusterInfo, database: string, poolSize: number): Promise<Pgbouncer> {
  const dir = mkdtempSync(join(tmpdir(), "pgbouncer-test-"));
  chmodSync(dir, 0o755);
  // A port no other run on this machine uses: it names the socket and pgbouncer's own lock.
  const port = await freePort();
  writeFileSync(join(dir, "pgbouncer.ini"), `[databases]
${database} = host=${cluster.host} port=${cluster.port} dbname=${database}

[pgbouncer]
pool_mode = transaction
listen_addr =
listen_port = ${port}
unix_socket_dir = ${dir}
auth_type = trust
auth_file = ${join(dir, "users.txt")}
default_pool_size = ${poolSize}
max_client_conn = 200
logfile = ${join(dir, "pgbouncer.log")}
`);
  writeFileSync(join(dir, "users.txt"), '"authenticator" ""\n"postgres" ""\n');
  const owner = isRoot
    ? {
        uid: Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim()),
        gid: Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim()),
      }
    : undefined;
  if (owner) for (const f of ["", "pgbouncer.ini", "users.txt"]) chownSync(join(dir, f), owner.uid, owner.gid);
  // As root, started as the postgres user directly (pgbouncer refuses to run as root), so the
  // child is pgbouncer itself and can be stopped by its own id.
  const child: ChildProcess = spawn(pgbouncerBinary, [join(dir, "pgbouncer.ini")], { stdio: "ignore", ...(owner ?? {}) });
  const socket = join(dir, `.s.PGSQL.${port}`);
  for (let i = 0; i < 200 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 25));
  if (!existsSync(socket)) throw new Error(`pgbouncer did not start (see ${join(dir, "pgbouncer.log")})`);
  return {
    host: dir,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGINT"); // stops at once, closing every connection
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

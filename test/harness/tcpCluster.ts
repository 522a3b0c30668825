// Test infrastructure: a throwaway cluster that also listens on 127.0.0.1 (a free port), where
// TCP logins authenticate with scram-sha-256 and SSL is on with a self-signed certificate made by
// openssl. Unix-socket connections stay trusted (the platform's own logins use them).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { clusterDefaults, startCluster, writeServerFile, type ClusterInfo } from "./cluster";

export interface TcpCluster extends ClusterInfo {
  /** Where TCP clients connect (the port is the cluster's own). */
  tcpHost: "127.0.0.1";
}

/** A port nothing listens on at this moment. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const hba = ["local all all trust", "host all all 127.0.0.1/32 scram-sha-256", "host all all ::1/128 scram-sha-256", ""].join("\n");

function selfSignedCertificate(dataDir: string): void {
  const key = join(dataDir, "server.key");
  const crt = join(dataDir, "server.crt");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", crt],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  // Written again so the server's OS user owns them; PostgreSQL refuses a key others can read.
  writeServerFile(key, readFileSync(key, "utf8"), 0o600);
  writeServerFile(crt, readFileSync(crt, "utf8"));
}

export async function startTcpCluster(settings: Record<string, string> = {}): Promise<TcpCluster> {
  const port = await freePort();
  const info = startCluster({
    port,
    settings: { listen_addresses: "'127.0.0.1'", ssl: "on", ...settings },
    prepare(dataDir) {
      // The file agrees with the command line, so a reload finds no document setting waiting for a restart.
      const conf = join(dataDir, "postgresql.conf");
      writeServerFile(conf, `${readFileSync(conf, "utf8")}\nmax_connections = ${clusterDefaults.max_connections}\n`);
      writeServerFile(join(dataDir, "pg_hba.conf"), hba);
      selfSignedCertificate(dataDir);
    },
  });
  return { ...info, tcpHost: "127.0.0.1" };
}

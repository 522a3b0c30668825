// Test infrastructure: a streaming hot standby of a cluster, made with `pg_basebackup -R` (which
// writes standby.signal and primary_conninfo) and started beside it on its own socket folder.
import { join } from "node:path";
import { asServer, serverFolder, startDataDir, type ClusterInfo, type ClusterOptions } from "./cluster";

export function startStandby(primary: ClusterInfo, options: ClusterOptions = {}): ClusterInfo {
  const root = serverFolder("pg-graphql-standby-");
  const dataDir = join(root, "data");
  asServer(join(primary.bindir, "pg_basebackup"), [
    "-D", dataDir, "-R", "-X", "stream", "--no-sync", "--checkpoint=fast", "-h", primary.host, "-p", String(primary.port), "-U", "postgres",
  ]);
  return startDataDir(root, dataDir, options);
}

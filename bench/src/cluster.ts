// Bench stage: environment. Input: nothing but `pg_config` on PATH. Output: the test harness's
// throwaway PostgreSQL 15 cluster (Unix socket in a temp dir, pg_stat_statements and plv8
// preloaded), with the memory and statement-tracking settings the measurements need.
import { crashLines, startCluster as startThrowawayCluster, stopCluster, type ClusterInfo } from "../../test/harness/cluster";

export type Cluster = ClusterInfo;

export { crashLines, stopCluster };

export function startCluster(): Cluster {
  return startThrowawayCluster({
    settings: { max_connections: "100", shared_buffers: "256MB", "pg_stat_statements.max": "10000" },
  });
}

export function connectionUrl(c: Cluster, database: string, user = "postgres"): string {
  return `postgresql://${encodeURIComponent(user)}@/${encodeURIComponent(database)}?host=${encodeURIComponent(c.host)}&port=${c.port}`;
}

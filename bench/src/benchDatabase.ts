// Bench stage: a measuring database. Input: nothing but `pg_config` on PATH. Output: the bench
// cluster with the `bench` database (default-scale dataset, pg_graphql installed for the API
// roles), for the measurements that run apart from the main bench.
import pg from "pg";
import { connectionUrl, startCluster, stopCluster, type Cluster } from "./cluster";
import { createDataset, scaleNamed } from "./dataset";

export async function startBenchDatabase(log: (line: string) => void): Promise<Cluster> {
  const cluster = startCluster();
  const run = async (database: string, work: (client: pg.Client) => Promise<unknown>) => {
    const client = new pg.Client({ connectionString: connectionUrl(cluster, database) });
    await client.connect();
    try {
      await work(client);
    } finally {
      await client.end();
    }
  };
  try {
    await run("postgres", (c) => c.query("create database bench"));
    await run("bench", async (c) => {
      log("generating the dataset");
      await createDataset(c, scaleNamed("default"));
      await c.query("create extension if not exists pg_graphql cascade");
      await c.query("grant usage on schema graphql to anon, authenticated, service_role");
    });
  } catch (e) {
    stopCluster(cluster);
    throw e;
  }
  return cluster;
}

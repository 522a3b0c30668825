// Demo stage: demo settings → a throwaway cluster with pg_graphql, the roles and the demo schema,
// served until Ctrl-C, which stops the server and removes the cluster.
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { ServerConfig } from "../config";
import { banner, onShutdown, serve } from "../serve";
import { applySetup, asAuthenticator } from "../setup";
import { clusterUrl, removeCluster, startCluster, type Cluster } from "./cluster";

async function createExtension(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("create extension if not exists pg_graphql cascade");
  } finally {
    await client.end();
  }
}

export async function runDemo(settings: Omit<ServerConfig, "databaseUrl" | "jwtSecret"> & { jwtSecret: string | undefined }): Promise<void> {
  let cluster: Cluster | undefined;
  const cleanup = () => {
    if (cluster) removeCluster(cluster);
    cluster = undefined;
  };
  process.on("exit", cleanup);
  try {
    cluster = startCluster();
    const adminUrl = clusterUrl(cluster);
    await createExtension(adminUrl);
    await applySetup(adminUrl, { demo: true });
    const jwtSecret = settings.jwtSecret ?? randomBytes(36).toString("base64url");
    const running = await serve({ ...settings, jwtSecret, databaseUrl: asAuthenticator(adminUrl) });
    process.stdout.write(
      `pg_graphql demo is running (Ctrl-C stops it and removes the database)\n${banner(running, [
        ["JWT secret", jwtSecret],
        ["Database URL", adminUrl],
      ])}\n`,
    );
    onShutdown(async () => {
      await running.app.close();
      cleanup();
    });
  } catch (e) {
    cleanup();
    throw e;
  }
}

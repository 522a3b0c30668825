// Demo stage: demo settings → a throwaway cluster with pg_graphql, the roles and the demo schema,
// served until Ctrl-C, which stops the server and removes the cluster.
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { ServerConfig } from "../config";
import { banner, onShutdown, serve, type Running } from "../serve";
import { applySetup, asAuthenticator } from "../setup";
import { clusterUrl, removeCluster, startCluster, type Cluster } from "./cluster";
import { demoPlatform } from "../management/demoPlatform";

async function createExtension(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query("create extension if not exists pg_graphql cascade");
  } catch (e) {
    const missing = (e as { code?: string }).code === "0A000" || /not available/.test(String(e));
    throw missing ? new Error("pg_graphql is not installed in this PostgreSQL: run `make install` first") : e;
  } finally {
    await client.end();
  }
}

type DemoSettings = Omit<ServerConfig, "databaseUrl" | "jwtSecret"> & { jwtSecret: string | undefined };

export interface Demo {
  running: Running;
  adminUrl: string;
  jwtSecret: string;
  /** The Management API's lines: a token, an organization, a project and its GraphQL address. */
  platform: Array<[string, string]>;
  /** Stops the server, then the cluster, and removes the cluster's folder. */
  stop(): Promise<void>;
}

/** Starts a cluster, installs pg_graphql, the roles and the demo schema, and serves it. */
export async function startDemo(settings: DemoSettings): Promise<Demo> {
  let cluster: Cluster | undefined;
  const removeOnce = () => {
    if (cluster) removeCluster(cluster);
    cluster = undefined;
  };
  // Even an unexpected exit must not leave a cluster running.
  process.on("exit", removeOnce);
  try {
    cluster = startCluster();
    const adminUrl = clusterUrl(cluster);
    await createExtension(adminUrl);
    await applySetup(adminUrl, { demo: true });
    const jwtSecret = settings.jwtSecret ?? randomBytes(36).toString("base64url");
    const platformDatabaseUrl = clusterUrl(cluster, "postgres", "platform");
    // The demo's secrets live as long as its cluster: a fresh key each run encrypts them.
    const management = { platformDatabaseUrl, projectServers: [adminUrl], rateLimit: 60, now: Date.now, secretsKey: randomBytes(32) };
    const running = await serve({ ...settings, jwtSecret, databaseUrl: asAuthenticator(adminUrl), management });
    return {
      running,
      platform: await demoPlatform(running.baseUrl, platformDatabaseUrl),
      adminUrl,
      jwtSecret,
      async stop() {
        try {
          await running.app.close();
        } finally {
          removeOnce();
        }
      },
    };
  } catch (e) {
    removeOnce();
    throw e;
  }
}

export async function runDemo(settings: DemoSettings): Promise<void> {
  const demo = await startDemo(settings);
  process.stdout.write(
    `pg_graphql demo is running (Ctrl-C stops it and removes the database)\n${banner(demo.running, [
      ["JWT secret", demo.jwtSecret],
      ...demo.platform,
      ["Database URL", demo.adminUrl],
    ])}\n`,
  );
  onShutdown(() => demo.stop());
}

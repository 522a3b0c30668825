// Demo stage: demo settings → a throwaway cluster with pg_graphql, the roles and the demo schema,
// the Management API with a first project holding the same schema, served until Ctrl-C, which
// stops the server and removes the cluster.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import type { ServerConfig } from "../config";
import { onShutdown, serve, type Running } from "../serve";
import { aligned, banner } from "../http/banner";
import { applySetup, asAuthenticator, demoUser } from "../setup";
import { signUserToken } from "../userToken";
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
  /** A signed-in user's token for the demo database (ada, role authenticated). */
  userJwt: string;
  /** Where the secrets key of the Management API is kept (inside the throwaway cluster's folder). */
  secretsKeyFile: string;
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
    const secretsKeyFile = join(cluster.root, "secrets.key");
    const management = {
      platformDatabaseUrl,
      projectServers: [adminUrl],
      rateLimit: 60,
      now: Date.now,
      secretsKeyFile,
      // Every client of the demo is this machine: a few wrong keys must not lock it out.
      banExemptLoopback: true,
    };
    const running = await serve({ ...settings, jwtSecret, databaseUrl: asAuthenticator(adminUrl), management });
    const userJwt = await signUserToken({ kind: "secret", secret: new TextEncoder().encode(jwtSecret) }, { ...demoUser, expiresInSeconds: 24 * 3600 });
    return {
      running,
      platform: await demoPlatform(running.baseUrl, platformDatabaseUrl),
      adminUrl,
      jwtSecret,
      userJwt,
      secretsKeyFile,
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

/** What the demo prints once it is ready: which address serves which database, and what to try. */
export function demoBanner(demo: Pick<Demo, "running" | "adminUrl" | "jwtSecret" | "userJwt" | "secretsKeyFile" | "platform">, logLevel: string): string {
  return [
    "pg_graphql demo is running (Ctrl-C stops it and removes the database)",
    "",
    "The demo database: a blog (account, blog, blog_post) with row level security",
    banner(demo.running.baseUrl, { keys: demo.running.app.keys }, [
      ["user JWT", demo.userJwt],
      ["JWT secret", demo.jwtSecret],
      ["Database URL", demo.adminUrl],
    ]),
    "",
    "The Management API, and a first project: its own database, with the same demo schema loaded",
    aligned([...demo.platform, ["secrets key file", demo.secretsKeyFile]]),
    "",
    "Try it: anon sees published posts only; send `Authorization: Bearer <user JWT>` (ada, role",
    "authenticated, valid 24 h) to see her drafts too. `node server/bin.js jwt --sub <id> --jwt-secret",
    "<secret>` (or --project <ref> --platform-database-url <url>) signs tokens for other users.",
    "Both databases set `comment on schema public is '@graphql({\"inflect_names\": true,",
    "\"introspection\": true})'`: introspection fills GraphiQL's docs, inflect_names turns blog_post into",
    "BlogPost and insertIntoBlogPostCollection. A new project has both off (as pg_graphql's defaults):",
    "set that comment in it to get the same.",
    logLevel === "warn" ? "Requests are not logged (--log-level info logs each one)." : `Logging at ${logLevel}.`,
  ].join("\n");
}

export async function runDemo(settings: DemoSettings): Promise<void> {
  const demo = await startDemo(settings);
  process.stdout.write(`${demoBanner(demo, settings.logLevel)}\n`);
  onShutdown(() => demo.stop());
}

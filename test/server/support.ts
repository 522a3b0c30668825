// Test support for the HTTP server: a real server on a loopback port over a fresh database of
// the run's cluster, prepared by the server's own setup, and helpers to sign tokens and call it.
import { SignJWT, type JWTPayload } from "jose";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { defaultSettings, type ServerConfig } from "../../server/src/config";
import { serve, type Running } from "../../server/src/serve";
import { applySetup, asAuthenticator } from "../../server/src/setup";

export const secret = "a-test-secret-that-is-long-enough-for-hs256";

export interface TestServer {
  db: TestDatabase;
  running: Running;
  endpoint: string;
  anonKey: string;
  serviceKey: string;
  /** Whether pg_graphql is installed in the cluster (and so was created in the database). */
  extension: boolean;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Load server/demo/schema.sql with the setup. */
  demo?: boolean;
  /** SQL run as the superuser after setup, before the server starts. */
  schema?: string;
  config?: Partial<ServerConfig>;
  assetsDir?: string;
  /** Create pg_graphql in the database when it is installed (default true). */
  extension?: boolean;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const db = await freshDatabase();
  const installed =
    options.extension !== false &&
    ((await db.query("select 1 from pg_available_extensions where name = 'pg_graphql'")).rowCount ?? 0) > 0;
  if (installed) await db.query("create extension pg_graphql cascade");
  else if (options.extension !== false) console.warn("pg_graphql is not installed (run `make install`)");
  await applySetup(db.url, { demo: options.demo === true });
  if (options.schema) await db.query(options.schema);
  const running = await serve(
    {
      ...defaultSettings(),
      databaseUrl: asAuthenticator(db.url),
      host: "127.0.0.1",
      port: 0,
      jwtSecret: secret,
      poolSize: 4,
      bodyLimit: 1024 * 1024,
      corsOrigins: "*",
      schemas: ["public"],
      logLevel: "warn",
      ...options.config,
    },
    options.assetsDir,
  );
  return {
    db,
    running,
    endpoint: `${running.baseUrl}/graphql/v1`,
    anonKey: running.app.keys.anon,
    serviceKey: running.app.keys.serviceRole,
    extension: installed,
    async close() {
      await running.app.close();
      await db.drop();
    },
  };
}

export function signToken(claims: JWTPayload, key: string = secret, expiresIn: string | number = "1h"): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(key));
}

export interface GraphQLResponse {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string }>;
}

export async function post(
  endpoint: string,
  apiKey: string | undefined,
  body: unknown,
  token?: string,
): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (apiKey !== undefined) headers["apikey"] = apiKey;
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
  const response = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

/** Runs a GraphQL request that must succeed at the HTTP level and returns its payload. */
export async function graphql(
  server: TestServer,
  query: string,
  options: { apiKey?: string; token?: string; variables?: Record<string, unknown> } = {},
): Promise<GraphQLResponse> {
  const { status, json } = await post(
    server.endpoint,
    options.apiKey ?? server.anonKey,
    { query, variables: options.variables ?? {} },
    options.token,
  );
  if (status !== 200) throw new Error(`HTTP ${status}: ${JSON.stringify(json)}`);
  return json as GraphQLResponse;
}

/** Whether the installed pg_graphql reflects tables into collections yet (probed as service_role
 * on a table of the caller's schema): tests of reflected behaviour skip, saying so, until then. */
export async function reflectsTables(server: TestServer, collection: string): Promise<boolean> {
  if (!server.extension) return false;
  const result = await graphql(server, `{ ${collection}(first: 1) { edges { node { __typename } } } }`, {
    apiKey: server.serviceKey,
  });
  const reflects = result.errors === undefined && result.data?.[collection] !== undefined;
  if (!reflects) {
    console.warn(`pg_graphql does not reflect ${collection} yet (${JSON.stringify(result.errors)}); skipping`);
  }
  return reflects;
}

/** Whether the installed pg_graphql runs mutations yet, probed with a delete that matches no row:
 * tests that need mutations to succeed skip, saying so, until then. */
export async function runsMutations(server: TestServer, collection: string): Promise<boolean> {
  if (!server.extension) return false;
  const result = await graphql(server, `mutation { deleteFrom${collection}(filter: { id: { eq: -1 } }) { affectedCount } }`, {
    apiKey: server.serviceKey,
  });
  const runs = result.errors === undefined && result.data?.[`deleteFrom${collection}`]?.affectedCount === 0;
  if (!runs) console.warn(`pg_graphql does not run mutations yet (${JSON.stringify(result.errors)}); skipping`);
  return runs;
}

/** Polls `condition` every 25 ms until it holds (true) or `tries` run out (false). */
export async function until(condition: () => boolean | Promise<boolean>, tries = 400): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/** Pids of the server's statements running (or waiting on a lock) in its database now. */
export async function activePids(server: TestServer): Promise<number[]> {
  const { rows } = await server.db.query(
    "select pid from pg_stat_activity where usename = 'authenticator' and datname = current_database() and state = 'active' order by pid",
  );
  return rows.map((r) => r.pid as number);
}

/** Holds `table` locked (so statements reading or writing it wait) while `body` runs. */
export async function withTableLocked<T>(server: TestServer, table: string, body: () => Promise<T>): Promise<T> {
  const admin = await server.db.connect();
  await admin.query("begin");
  await admin.query(`lock table ${table} in access exclusive mode`);
  try {
    return await body();
  } finally {
    await admin.query("commit");
    await admin.end();
  }
}

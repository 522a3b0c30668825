// Connection exhaustion by one tenant: B opens connections to its own database through the
// database router with its own password, as many as it is let; A's SQL endpoint and data API
// must keep working, and B must be refused past its cap (not by a full server). The projects
// live on a server of their own with PostgreSQL's default max_connections.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startCluster, stopCluster, type ClusterInfo } from "../harness/cluster";
import { clusterUrl, graphqlAt, startPlatform, type TestPlatform } from "../management/support";
import { connectionRefusalCodes, connectionTestMaxConnections } from "./guesses";
import { makeTenant, type Tenant } from "./hostileWorld";

let server: ClusterInfo;
let platform: TestPlatform;
let a: Tenant;
let b: Tenant;
const held: pg.Client[] = [];

beforeAll(async () => {
  server = startCluster({ settings: { max_connections: String(connectionTestMaxConnections) } });
  platform = await startPlatform({ projectServers: [clusterUrl(server)], databaseRouterPort: 0 });
  a = await makeTenant(platform, "connections-a@example.com", "connections-a");
  b = await makeTenant(platform, "connections-b@example.com", "connections-b");
}, 300_000);
afterAll(async () => {
  await Promise.all(held.map((c) => c.end().catch(() => {})));
  try {
    for (const t of [a, b]) await t?.call("DELETE", `/v1/projects/${t.ref}`);
    await platform?.close();
  } finally {
    if (server) stopCluster(server);
  }
}, 120_000);

it("caps one tenant's sessions before another tenant's SQL and data API run out of connections", async () => {
  let refusal: (Error & { code?: string }) | undefined;
  // Bounded: never more attempts than the server has slots.
  for (let i = 0; i < connectionTestMaxConnections + 5 && !refusal; i++) {
    const client = new pg.Client({
      host: "127.0.0.1",
      port: platform.running.routerPort!,
      user: `${b.owner}.${b.ref}`,
      database: "postgres",
      password: b.password,
    });
    client.on("error", () => {});
    try {
      await client.connect();
      held.push(client);
    } catch (e) {
      refusal = e as Error & { code?: string };
      await client.end().catch(() => {});
    }
  }
  expect(held.length, "B may open some sessions of its own").toBeGreaterThan(1);
  expect(refusal, "B is refused at some point").toBeDefined();
  expect(connectionRefusalCodes, refusal!.message).toContain(refusal!.code);

  // While B holds all it could get, A's SQL endpoint and data API (opened only now) still answer.
  const query = await a.call("POST", `/v1/projects/${a.ref}/database/query`, { query: "select 1 as one" });
  expect(query.status, JSON.stringify(query.body)).toBe(201);
  const anon = (await a.call("GET", `/v1/projects/${a.ref}/api-keys`)).body[0].api_key as string;
  const data = await graphqlAt(`${platform.baseUrl}/project/${a.ref}/graphql/v1`, anon, "{ __typename }");
  expect(data.status, JSON.stringify(data.body)).toBe(200);
  // And B's own SQL endpoint is not locked out by B's own sessions either.
  const own = await b.call("POST", `/v1/projects/${b.ref}/database/query`, { query: "select 1 as one" });
  expect(own.status, JSON.stringify(own.body)).toBe(201);
});

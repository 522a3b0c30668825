// Several project servers: a second throwaway cluster next to the run's one. New projects go to
// the server with the fewest projects and record it; each project's GraphQL answers by path and
// by Host header (`<ref>.<domain>`), also next to a single-database /graphql/v1 in one process.
import { dataApiTuning } from "../../server/src/management/dataApi/dataApiTuning";
import { ProjectAuthenticators } from "../../server/src/management/auth/projectAuthenticators";
import { defaultSettings } from "../../server/src/config";
import { dataApiSettings } from "../../server/src/management/plugin";
import { request } from "node:http";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startCluster, stopCluster, type ClusterInfo } from "../harness/cluster";
import { clusterInfo } from "../harness/db";
import { startTestServer, type TestServer } from "../server/support";
import { ProjectHolds } from "../../server/src/management/dataApi/projectHolds";
import { ProjectPools } from "../../server/src/management/dataApi/projectPools";
import { api, clusterUrl, graphqlAt, startPlatform, tracesOf, type TestPlatform } from "./support";

let second: ClusterInfo;
let platform: TestPlatform;
let token: string;
let slug: string;
const refs: string[] = [];

beforeAll(async () => {
  second = startCluster();
  // The last test stops a server: the failures it causes are logged as errors, and checked here.
  platform = await startPlatform({ projectServers: [clusterUrl(clusterInfo()), clusterUrl(second)], logLevel: "fatal" });
  token = await platform.token("grower@example.com");
  slug = (await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "Growing" })).body.slug;
});
afterAll(async () => {
  for (const ref of refs) await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform?.close();
  if (second) stopCluster(second);
});

/** POST /graphql/v1 with a Host header (fetch does not let a caller set Host). */
function postWithHost(baseUrl: string, host: string, apiKey: string, query: string): Promise<{ status: number; body: any }> {
  const url = new URL(`${baseUrl}/graphql/v1`);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { host, apikey: apiKey, "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ query }));
  });
}

async function createProject(name: string) {
  const r = await api(platform.baseUrl, token, "POST", "/v1/projects", { name, organization_slug: slug, region: "ap-south-1", db_pass: "pw" });
  expect(r.status).toBe(201);
  refs.push(r.body.ref);
  const got = await api(platform.baseUrl, token, "GET", `/v1/projects/${r.body.ref}`);
  const keys = await api(platform.baseUrl, token, "GET", `/v1/projects/${r.body.ref}/api-keys`);
  return { ref: r.body.ref as string, host: got.body.database.host as string, anon: keys.body[0].api_key as string };
}

it("places each new project on the server with the fewest projects", async () => {
  const a = await createProject("a");
  const b = await createProject("b");
  const c = await createProject("c");
  expect([a.host, b.host, c.host]).toEqual([clusterInfo().host, second.host, clusterInfo().host]);
  expect((await tracesOf(clusterUrl(second), b.ref)).databases).toEqual([b.ref]);
  expect((await tracesOf(clusterUrl(clusterInfo()), b.ref)).databases).toEqual([]);
  for (const p of [a, b, c]) {
    const r = await graphqlAt(`${platform.baseUrl}/project/${p.ref}/graphql/v1`, p.anon, "{ __typename }");
    expect(r.body).toEqual({ data: { __typename: "Query" } });
  }
});

it("keeps at most the configured number of project pools open, closing the least recently used", async () => {
  const { projects, servers, settings, restrictions } = platform.running.services;
  const tune = async (ref: string) => dataApiTuning(await settings.get(ref), await restrictions.get(ref), Date.now);
  const settingsOfPools = dataApiSettings({ ...defaultSettings(), poolSize: 1, management: {} });
  const pools = new ProjectPools(projects, servers, settingsOfPools, new ProjectAuthenticators(platform.running.services.platform), tune, () => 10, new ProjectHolds(), 2);
  try {
    const [a, b, c] = refs;
    const first = (await pools.get(a!))!;
    const second = (await pools.get(b!))!;
    await pools.get(a!);
    await pools.get(c!);
    expect(pools.openCount).toBe(2);
    // b was used less recently than a, so b's pool is the one closed.
    const ending = (entry: typeof first) => (entry.database.pool as unknown as { ending: boolean }).ending;
    await vi.waitFor(() => expect(ending(second)).toBe(true));
    expect(ending(first)).toBe(false);
    expect(await pools.get("q".repeat(20))).toBeUndefined();
    expect(pools.openCount).toBe(2);
    expect(ending(first)).toBe(false);
  } finally {
    await pools.closeAll();
  }
});

it("routes /graphql/v1 by the Host header's project ref", async () => {
  const b = await createProject("by-host");
  const r = await postWithHost(platform.baseUrl, `${b.ref}.projects.example.test`, b.anon, "{ __typename }");
  expect(r).toEqual({ status: 200, body: { data: { __typename: "Query" } } });
  const unknown = await postWithHost(platform.baseUrl, `${"x".repeat(20)}.projects.example.test`, b.anon, "{ __typename }");
  expect(unknown.status).toBe(404);
  const plain = await postWithHost(platform.baseUrl, "projects.example.test", b.anon, "{ __typename }");
  expect(plain.status).toBe(404);
});

it("deleting projects removes their databases from whichever server holds them", async () => {
  for (const ref of refs.splice(0)) {
    expect((await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`)).status).toBe(200);
    for (const server of [clusterUrl(clusterInfo()), clusterUrl(second)]) {
      expect(await tracesOf(server, ref)).toEqual({ databases: [], roles: [] });
    }
  }
});

it("serves the single database and the projects from one process", async () => {
  let both: TestServer | undefined;
  try {
    both = await startTestServer({
      config: {
        management: {
          platformDatabaseUrl: platform.platformUrl,
          projectServers: [clusterUrl(second)],
          rateLimit: 60,
          now: Date.now,
        },
      },
    });
    const created = await api(both.running.baseUrl, token, "POST", "/v1/projects", { name: "mixed", organization_slug: slug, region: "ap-south-1", db_pass: "pw" });
    expect(created.status).toBe(201);
    refs.push(created.body.ref);
    const anon = (await api(both.running.baseUrl, token, "GET", `/v1/projects/${created.body.ref}/api-keys`)).body[0].api_key;
    const own = await postWithHost(both.running.baseUrl, `${created.body.ref}.local.test`, anon, "{ __typename }");
    expect(own).toEqual({ status: 200, body: { data: { __typename: "Query" } } });
    // The single database's /graphql/v1 keeps its own keys: the project's key is not one of them.
    const single = await postWithHost(both.running.baseUrl, "127.0.0.1", anon, "{ __typename }");
    expect(single.status).toBe(401);
    const itsOwn = await postWithHost(both.running.baseUrl, "127.0.0.1", both.anonKey, "{ __typename }");
    expect(itsOwn).toEqual({ status: 200, body: { data: { __typename: "Query" } } });
  } finally {
    await both?.close();
  }
});

it("reports a stopped project server: health says so, its projects' APIs answer 503", async () => {
  // The project made by the previous test lives on the second server.
  const ref = refs.at(-1)!;
  expect((await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}`)).body.database.host).toBe(second.host);
  const p = { ref, anon: (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys`)).body[0].api_key as string };
  stopCluster(second);
  const health = await api(platform.baseUrl, token, "GET", `/v1/projects/${p.ref}/health?services=db`);
  expect(health.status).toBe(200);
  expect(health.body[0]).toMatchObject({ name: "db", healthy: false, status: "UNHEALTHY" });
  const data = await graphqlAt(`${platform.baseUrl}/project/${p.ref}/graphql/v1`, p.anon, "{ __typename }");
  expect(data.status).toBe(503);
  const paused = await api(platform.baseUrl, token, "POST", `/v1/projects/${p.ref}/pause`);
  expect(paused.status).toBe(503);
  expect(paused.body.message).toMatch(/unavailable/);
  // The refused pause changed nothing.
  expect((await api(platform.baseUrl, token, "GET", `/v1/projects/${p.ref}`)).body.status).toBe("ACTIVE_HEALTHY");
  const removed = await api(platform.baseUrl, token, "DELETE", `/v1/projects/${p.ref}`);
  expect(removed.status).toBe(503);
  expect((await api(platform.baseUrl, token, "GET", `/v1/projects/${p.ref}`)).body.status).toBe("ACTIVE_HEALTHY");
});

// Many project operations at once on one platform server: 50 requests, creates with deletes and
// branch creates (with and without data) mixed in, all answered, while /health and an open
// project's GraphQL endpoint keep answering. Each operation holds a per-project lock: when that
// lock and the operation's own statements shared the platform pool, ten creates at once held
// every connection and waited for an eleventh forever. The test's own timeout is the guard; no
// duration is asserted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminQuery, api, clusterUrl, createProject, graphqlAt, startPlatform, type TestPlatform } from "./support";
import { clusterInfo } from "../harness/db";

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("many@example.com");
});
afterAll(async () => platform.close());

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);

async function anonKey(ref: string): Promise<string> {
  const keys = await call("GET", `/v1/projects/${ref}/api-keys?reveal=true`);
  return (keys.body as { name: string; api_key: string }[]).find((k) => k.name === "anon")!.api_key;
}

describe("concurrent project operations", () => {
  it("answers 50 creates, deletes and branch creates sent at once, and stays responsive meanwhile", { timeout: 600_000 }, async () => {
    const { slug, ref: parent } = await createProject(platform.baseUrl, token, "parent");
    const seeded = await call("POST", `/v1/projects/${parent}/database/query`, {
      query: "create table item (id int primary key, name text); insert into item select i, 'item ' || i from generate_series(1, 50) i; grant select on item to anon",
    });
    expect(seeded.status).toBe(201);
    const victims: string[] = [];
    for (let i = 0; i < 5; i++) victims.push((await createProject(platform.baseUrl, token, `victim-${i}`)).ref);
    const key = await anonKey(parent);
    const graphqlUrl = `${platform.baseUrl}/project/${parent}/graphql/v1`;
    expect((await graphqlAt(graphqlUrl, key, "{ itemCollection(first: 1) { edges { node { id } } } }")).status).toBe(200);

    const requests: Array<{ what: string; sent: Promise<{ status: number; body: any }> }> = [];
    for (let i = 0; i < 40; i++) {
      requests.push({ what: `create ${i}`, sent: call("POST", "/v1/projects", { name: `many-${i}`, organization_slug: slug, region: "eu-west-1", db_pass: "a-password-1" }) });
      if (i % 8 === 0) {
        const n = i / 8;
        requests.push({ what: `delete ${n}`, sent: call("DELETE", `/v1/projects/${victims[n]}`) });
        requests.push({ what: `branch ${n}`, sent: call("POST", `/v1/projects/${parent}/branches`, { branch_name: `b-${n}`, with_data: n % 2 === 0 }) });
      }
    }
    expect(requests).toHaveLength(50);

    // While they run, the server answers the rest of its traffic.
    const health = await fetch(`${platform.baseUrl}/health`);
    expect(health.status).toBe(200);
    const read = await graphqlAt(graphqlUrl, key, "{ itemCollection(first: 2) { edges { node { id } } } }");
    expect(read.status).toBe(200);
    expect(read.body.data.itemCollection.edges).toHaveLength(2);

    const answers = await Promise.all(requests.map(async (r) => ({ what: r.what, ...(await r.sent) })));
    const unexpected = answers.filter((a) => (a.what.startsWith("delete") ? a.status !== 200 : a.status !== 201));
    expect(unexpected.map((a) => `${a.what}: ${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);

    // Every create is a working project; every delete left nothing; branches with data have the rows.
    const created = answers.filter((a) => a.what.startsWith("create")).map((a) => a.body.ref as string);
    const server = clusterUrl(clusterInfo());
    const databases = new Set((await adminQuery<{ datname: string }>(server, "select datname from pg_database")).map((r) => r.datname));
    expect(created.filter((ref) => !databases.has(ref))).toEqual([]);
    expect(victims.filter((ref) => databases.has(ref))).toEqual([]);
    const branches = answers.filter((a) => a.what.startsWith("branch"));
    for (const b of branches) {
      if (!b.body.with_data) continue;
      const rows = await call("POST", `/v1/projects/${b.body.project_ref}/database/query`, { query: "select count(*)::int as n from item" });
      expect(rows.body).toEqual([{ n: 50 }]);
    }
    const last = created.at(-1)!;
    const lastRead = await graphqlAt(`${platform.baseUrl}/project/${last}/graphql/v1`, await anonKey(last), "{ __typename }");
    expect(lastRead.body).toEqual({ data: { __typename: "Query" } });
  });
});

describe("stopping while a project operation cannot finish", () => {
  it("closes after the drain deadline, its request left without an answer", async () => {
    let reached!: () => void;
    const atCheckpoint = new Promise<void>((resolve) => (reached = resolve));
    // The create stops at its first step and never goes on.
    const stuck = await startPlatform({ drainMs: 1000, checkpoint: () => (reached(), new Promise<void>(() => {})) });
    const owner = await stuck.token("stuck@example.com");
    const slug = (await api(stuck.baseUrl, owner, "POST", "/v1/organizations", { name: "stuck org" })).body.slug;
    const pending = api(stuck.baseUrl, owner, "POST", "/v1/projects", { name: "stuck", organization_slug: slug, region: "eu-west-1", db_pass: "a-password-1" }).then(
      () => "answered",
      () => "connection closed",
    );
    await atCheckpoint;
    await stuck.running.close();
    expect(await pending).toBe("connection closed");
    await expect(fetch(`${stuck.baseUrl}/health`)).rejects.toThrow();
    await stuck.close();
  });
});

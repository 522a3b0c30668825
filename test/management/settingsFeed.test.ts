// Two server processes over one platform database: a project setting changed through one reaches
// the other's data API before its next sweep (the processes tell each other with NOTIFY on the
// platform database; the sweeps run every 30 s, far longer than any of these tests). The sweep
// still makes up for a missed announcement, and a listener that lost its connection catches up
// when it reconnects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { sweep } from "../../server/src/management/sweep";
import { listenerName } from "../../server/src/management/platform/changeFeed";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, type ApiResponse, type TestPlatform } from "./support";
import { makeProject, seed } from "./settingsSupport";

let first: TestPlatform;
let second: TestPlatform;
let token: string;
let ref: string;
let anon: string;

beforeAll(async () => {
  first = await startPlatform();
  second = await startPlatform({ platformDatabase: first.platformDatabase });
  token = await first.token("feed@example.com");
  ({ ref, anon } = await makeProject(first, token, "feed"));
  await seed(ref);
});
afterAll(async () => {
  await call("DELETE", `/v1/projects/${ref}`);
  await second?.close({ keepDatabase: true });
  await first?.close();
});

const call = (method: string, path: string, body?: unknown) => api(first.baseUrl, token, method, path, body);
const onSecond = (query: string) => graphqlAt(`${second.baseUrl}/project/${ref}/graphql/v1`, anon, query);
const gadgets = "{ gadgetCollection { edges { node { id } } } }";
const exposesApi = (r: ApiResponse) => r.body.data?.gadgetCollection?.edges?.length === 1;

/** Asks again (every 10 ms, up to 5 s) until the answer is the awaited one; returns the last answer. */
async function eventually<T>(ask: () => Promise<T>, awaited: (answer: T) => boolean): Promise<T> {
  const until = Date.now() + 5000;
  let answer = await ask();
  while (!awaited(answer) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    answer = await ask();
  }
  return answer;
}

describe("a change made through one process", () => {
  it("reaches the other's data API: exposed schemas", async () => {
    expect(exposesApi(await onSecond(gadgets))).toBe(false);
    expect((await call("PATCH", `/v1/projects/${ref}/postgrest`, { db_schema: "api", db_extra_search_path: "public" })).status).toBe(200);
    expect(exposesApi(await eventually(() => onSecond(gadgets), exposesApi))).toBe(true);
    await call("PATCH", `/v1/projects/${ref}/postgrest`, { db_schema: "public", db_extra_search_path: "" });
    expect(exposesApi(await eventually(() => onSecond(gadgets), (r) => !exposesApi(r)))).toBe(false);
  });

  it("reaches the other's sessions: a per-database setting", async () => {
    const workMem = async () => (await onSecond("{ work_mem_now }")).body.data.work_mem_now as string;
    expect(await workMem()).not.toBe("5MB");
    expect((await call("PUT", `/v1/projects/${ref}/config/database/postgres`, { work_mem: "5MB" })).status).toBe(200);
    expect(await eventually(workMem, (w) => w === "5MB")).toBe("5MB");
  });

  it("leaves no request in flight unanswered while the pools are reopened", async () => {
    let running = true;
    const answers: ApiResponse[] = [];
    const keepAsking = async () => {
      while (running) answers.push(await onSecond("{ work_mem_now }"));
    };
    const askers = [keepAsking(), keepAsking(), keepAsking()];
    for (const workMem of ["6MB", "7MB", "8MB", "9MB"]) {
      expect((await call("PUT", `/v1/projects/${ref}/config/database/postgres`, { work_mem: workMem })).status).toBe(200);
    }
    await eventually(() => onSecond("{ work_mem_now }"), (r) => r.body.data?.work_mem_now === "9MB");
    running = false;
    await Promise.all(askers);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((r) => r.status !== 200 || r.body.data?.work_mem_now === undefined).map((r) => r.body)).toEqual([]);
  });

  it("reaches the other's data API: network restrictions, applied and lifted", async () => {
    const status = async () => (await onSecond("{ __typename }")).status;
    expect(await status()).toBe(200);
    await call("POST", `/v1/projects/${ref}/network-restrictions/apply`, { dbAllowedCidrs: ["10.0.0.0/8"], dbAllowedCidrsV6: [] });
    expect(await eventually(status, (s) => s === 403)).toBe(403);
    await call("POST", `/v1/projects/${ref}/network-restrictions/apply`, { dbAllowedCidrs: ["0.0.0.0/0"], dbAllowedCidrsV6: ["::/0"] });
    expect(await eventually(status, (s) => s === 200)).toBe(200);
  });

  it("reaches the other's data API: a ban and its removal", async () => {
    const status = async () => (await onSecond("{ __typename }")).status;
    for (let i = 0; i < 10; i++) {
      expect((await graphqlAt(`${first.baseUrl}/project/${ref}/graphql/v1`, "not-a-key", "{ __typename }")).status).toBe(401);
    }
    expect(await eventually(status, (s) => s === 403)).toBe(403);
    expect((await call("DELETE", `/v1/projects/${ref}/network-bans`, { ipv4_addresses: ["127.0.0.1"] })).status).toBe(200);
    expect(await eventually(status, (s) => s === 200)).toBe(200);
  });
});

describe("missed announcements", () => {
  const setSchemaQuietly = (schema: string, extra: string) =>
    adminQuery(first.platformUrl, "update platform.project_settings set db_schema = $2, db_extra_search_path = $3 where ref = $1", [ref, schema, extra]);

  it("are made up for by the sweep: a pool opened with other settings is reopened", async () => {
    expect(exposesApi(await onSecond(gadgets))).toBe(false);
    await setSchemaQuietly("api", "public");
    expect(exposesApi(await onSecond(gadgets))).toBe(false);
    await sweep(second.running.services);
    expect(exposesApi(await onSecond(gadgets))).toBe(true);
    await setSchemaQuietly("public", "");
    await sweep(second.running.services);
    expect(exposesApi(await onSecond(gadgets))).toBe(false);
  });

  it("are made up for when a listener reconnects after losing its connection", async () => {
    await setSchemaQuietly("api", "public");
    expect(exposesApi(await onSecond(gadgets))).toBe(false);
    const ended = await adminQuery(
      clusterUrl(clusterInfo()),
      "select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = $1 and application_name = $2",
      [first.platformDatabase, listenerName],
    );
    expect(ended).toEqual([{ ok: true }, { ok: true }]);
    expect(exposesApi(await eventually(() => onSecond(gadgets), exposesApi))).toBe(true);
    // Listening again: an announcement reaches the reconnected process.
    await call("PATCH", `/v1/projects/${ref}/postgrest`, { db_schema: "public", db_extra_search_path: "" });
    expect(exposesApi(await eventually(() => onSecond(gadgets), (r) => !exposesApi(r)))).toBe(false);
  });
});

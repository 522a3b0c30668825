// Project settings over real HTTP: the data API settings (page cap, exposed schemas, pool size)
// reach the project's GraphQL endpoint at once; database settings are checked by PostgreSQL and
// reach the next request; server-wide ones are refused with the reason; the database password
// is stored as a SCRAM verifier; read-only mode refuses writes until an override, which ends;
// a backup restored gives the rows back; failed authentication bans an address.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { scramVerifier } from "../../server/src/management/tenants/scramVerifier";
import { sweep } from "../../server/src/management/sweep";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, type TestPlatform } from "./support";
import { makeProject, seed, settingsContext, type SettingsContext } from "./settingsSupport";

// PostgREST's pool timings, reported (not settable) for newer clients.
const poolTimings = { db_pool_acquisition_timeout: 10, db_pool_max_lifetime: 1800, db_pool_max_idletime: 30 };

let ctx: SettingsContext;
let platform: TestPlatform;
let token: string;
let ref: string;
let anon: string;
let projectUrl: string;
let clock = Date.now();

const call = (method: string, path: string, body?: unknown) => ctx.call(method, path, body);
const graphql = (query: string) => ctx.graphql(query);

beforeAll(async () => {
  ctx = await settingsContext("settings@example.com", "settings", () => clock);
  ({ platform, token, ref, anon } = ctx);
  projectUrl = clusterUrl(clusterInfo(), ref);
});
afterAll(() => ctx.close());

const itemCount = async () => (await graphql("{ itemCollection { edges { node { id } } } }")).body.data.itemCollection.edges.length;

describe("data API settings (postgrest)", () => {
  it("answers the defaults with the JWT secret, and without it after a change", async () => {
    const got = await call("GET", `/v1/projects/${ref}/postgrest`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ db_schema: "public", max_rows: 30, db_extra_search_path: "", db_pool: null, ...poolTimings, jwt_secret: expect.any(String) });
  });

  it("caps GraphQL pages at max_rows at once, keeping the schema's own comment", async () => {
    await adminQuery(projectUrl, "comment on schema public is 'shop data'");
    expect(await itemCount()).toBe(5);
    const patched = await call("PATCH", `/v1/projects/${ref}/postgrest`, { max_rows: 2 });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ db_schema: "public", max_rows: 2, db_extra_search_path: "", db_pool: null, ...poolTimings });
    expect(await itemCount()).toBe(2);
    const [comment] = await adminQuery(projectUrl, "select obj_description('public'::regnamespace, 'pg_namespace') as c");
    expect(comment.c).toBe('shop data\n@graphql({"max_rows":2})');
    await call("PATCH", `/v1/projects/${ref}/postgrest`, { max_rows: 1000 });
    expect(await itemCount()).toBe(5);
  });

  it("exposes the named schemas as the search path, and reopens the pool at its new size", async () => {
    const patched = await call("PATCH", `/v1/projects/${ref}/postgrest`, { db_schema: "api", db_extra_search_path: "public", db_pool: 3 });
    expect(patched.body).toEqual({ db_schema: "api", max_rows: 1000, db_extra_search_path: "public", db_pool: 3, ...poolTimings });
    const r = await graphql("{ gadgetCollection { edges { node { id } } } }");
    expect(r.body.data.gadgetCollection.edges).toEqual([{ node: { id: 1 } }]);
    const entry = await platform.running.services.pools.get(ref);
    expect(entry!.database.pool.options.max).toBe(3);
    await call("PATCH", `/v1/projects/${ref}/postgrest`, { db_schema: "public", db_extra_search_path: "" });
    expect((await graphql("{ gadgetCollection { edges { node { id } } } }")).body.errors).toBeDefined();
  });

  it("refuses unknown schemas, an empty schema list and zero caps with 400, changing nothing", async () => {
    const before = (await call("GET", `/v1/projects/${ref}/postgrest`)).body;
    const cases: Array<[unknown, RegExp]> = [
      [{ db_schema: "public,nowhere" }, /No schema "nowhere"/],
      [{ db_extra_search_path: "missing" }, /No schema "missing"/],
      [{ db_schema: " , " }, /at least one schema/],
      [{ max_rows: 0 }, /max_rows must be at least 1/],
      [{ db_pool: 0 }, /db_pool must be at least 1/],
      [{ max_rows: "10" }, /max_rows/],
      [{ db_schemas: "public" }, /additional|must NOT have/],
    ];
    for (const [body, message] of cases) {
      const r = await call("PATCH", `/v1/projects/${ref}/postgrest`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", `/v1/projects/${ref}/postgrest`)).body).toEqual(before);
    expect(await itemCount()).toBe(5);
  });
});

describe("database settings", () => {
  it("sets a per-database setting checked by PostgreSQL, seen by the next request", async () => {
    const put = await call("PUT", `/v1/projects/${ref}/config/database/postgres`, { work_mem: "7MB", statement_timeout: "90s" });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ work_mem: "7MB", statement_timeout: "90s", max_connections: expect.any(Number), track_commit_timestamp: false });
    expect((await call("GET", `/v1/projects/${ref}/config/database/postgres`)).body).toMatchObject({ work_mem: "7MB" });
    const r = await graphql("{ work_mem_now }");
    expect(r.body).toEqual({ data: { work_mem_now: "7MB" } });
    const [other] = await adminQuery(clusterUrl(clusterInfo()), "select current_setting('work_mem') as w");
    expect(other.w).not.toBe("7MB");
  });

  it("refuses bad values, restart-only and server-wide settings with the reason, changing nothing", async () => {
    // Another database on the server: server-wide settings would reach it too.
    const neighbour = `neighbour_${process.pid}`;
    await adminQuery(clusterUrl(clusterInfo()), `create database ${neighbour}`);
    afterAll(() => adminQuery(clusterUrl(clusterInfo()), `drop database if exists ${neighbour}`).then(() => undefined));
    const cases: Array<[unknown, RegExp]> = [
      [{ work_mem: "lots", statement_timeout: "1s" }, /PostgreSQL refused the setting: invalid value for parameter "work_mem"/],
      [{ max_connections: 50, work_mem: "1MB" }, /max_connections \(postmaster\) apply to the whole PostgreSQL server/],
      [{ checkpoint_timeout: "10min" }, /checkpoint_timeout \(sighup\) apply to the whole PostgreSQL server/],
      [{ statement_timeout: "soon" }, /statement_timeout/],
      [{ shared_memory: "1GB" }, /additional|must NOT have/],
    ];
    for (const [body, message] of cases) {
      const r = await call("PUT", `/v1/projects/${ref}/config/database/postgres`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", `/v1/projects/${ref}/config/database/postgres`)).body).toMatchObject({ work_mem: "7MB", statement_timeout: "90s" });
    expect((await graphql("{ work_mem_now }")).body).toEqual({ data: { work_mem_now: "7MB" } });
  });
});

describe("database password", () => {
  it("stores the new password of the project's role as a SCRAM verifier", async () => {
    const r = await call("PATCH", `/v1/projects/${ref}/database/password`, { password: "new-secret-42" });
    expect(r.status).toBe(200);
    expect(r.body.message).toMatch(/_owner/);
    const [row] = await adminQuery(clusterUrl(clusterInfo()), "select rolpassword from pg_authid where rolname = $1", [`${ref}_owner`]);
    const salt = Buffer.from(/^SCRAM-SHA-256\$4096:([^$]+)\$/.exec(row.rolpassword)![1]!, "base64");
    expect(row.rolpassword).toBe(scramVerifier("new-secret-42", salt));
  });

  it("refuses a short password with 400, changing nothing", async () => {
    const [before] = await adminQuery(clusterUrl(clusterInfo()), "select rolpassword from pg_authid where rolname = $1", [`${ref}_owner`]);
    const r = await call("PATCH", `/v1/projects/${ref}/database/password`, { password: "abc" });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/password/);
    const [after] = await adminQuery(clusterUrl(clusterInfo()), "select rolpassword from pg_authid where rolname = $1", [`${ref}_owner`]);
    expect(after).toEqual(before);
  });
});

describe("read-only mode", () => {
  let quota: TestPlatform;
  let quotaToken: string;
  let project: { ref: string; anon: string };
  let quotaClock = Date.UTC(2030, 0, 1);
  const insert = (id: number) =>
    graphqlAt(`${quota.baseUrl}/project/${project.ref}/graphql/v1`, project.anon, `mutation { insertIntoitemCollection(objects: [{ id: ${id} }]) { affectedCount } }`);

  beforeAll(async () => {
    // A quota every database is over: the project turns read-only at the first measure.
    quota = await startPlatform({ diskQuotaBytes: 1, now: () => quotaClock });
    quotaToken = await quota.token("quota@example.com");
    project = await makeProject(quota, quotaToken, "full");
    await seed(project.ref);
  });
  afterAll(async () => {
    await api(quota.baseUrl, quotaToken, "DELETE", `/v1/projects/${project.ref}`);
    await quota.close();
  });

  it("refuses mutations in the data API and writes in the database once over the quota", async () => {
    expect((await insert(10)).body.data.insertIntoitemCollection.affectedCount).toBe(1);
    await sweep(quota.running.services);
    const status = await api(quota.baseUrl, quotaToken, "GET", `/v1/projects/${project.ref}/readonly`);
    expect(status.body).toEqual({ enabled: true, override_enabled: false, override_active_until: "" });
    const refused = await insert(11);
    expect(refused.body.errors[0].message).toMatch(/read-only mode: mutations are refused/);
    await expect(adminQuery(clusterUrl(clusterInfo(), project.ref, `${project.ref}_owner`), "insert into public.item values (12)")).rejects.toThrow(/read-only transaction/);
    const reads = await graphqlAt(`${quota.baseUrl}/project/${project.ref}/graphql/v1`, project.anon, "{ itemCollection { edges { node { id } } } }");
    expect(reads.body.data.itemCollection.edges).toHaveLength(6);
  });

  it("lifts it for 15 minutes, then puts it back", async () => {
    const lifted = await api(quota.baseUrl, quotaToken, "POST", `/v1/projects/${project.ref}/readonly/temporary-disable`);
    expect(lifted.status).toBe(201);
    const status = await api(quota.baseUrl, quotaToken, "GET", `/v1/projects/${project.ref}/readonly`);
    expect(status.body).toEqual({ enabled: true, override_enabled: true, override_active_until: new Date(quotaClock + 15 * 60 * 1000).toISOString() });
    expect((await insert(13)).body.data.insertIntoitemCollection.affectedCount).toBe(1);
    await adminQuery(clusterUrl(clusterInfo(), project.ref, `${project.ref}_owner`), "insert into public.item values (14)");
    quotaClock += 15 * 60 * 1000;
    expect((await insert(15)).body.errors[0].message).toMatch(/read-only mode/);
    await sweep(quota.running.services);
    await expect(adminQuery(clusterUrl(clusterInfo(), project.ref, `${project.ref}_owner`), "insert into public.item values (16)")).rejects.toThrow(/read-only transaction/);
    expect((await api(quota.baseUrl, quotaToken, "GET", `/v1/projects/${project.ref}/readonly`)).body).toMatchObject({ enabled: true, override_enabled: false });
  });
});

describe("backups", () => {
  const path = (rest = "") => `/v1/projects/${ref}/database/backups${rest}`;
  const ids = async () => (await graphql("{ itemCollection(first: 50) { edges { node { id } } } }")).body.data.itemCollection.edges.map((e: any) => e.node.id);

  it("takes a restore point and undoes to it, replacing only the project's database", async () => {
    expect((await call("GET", path())).body).toEqual({ region: "eu-west-1", walg_enabled: false, pitr_enabled: false, backups: [], physical_backup_data: {} });
    const before = await ids();
    const point = await call("POST", path("/restore-point"), { name: "before-purge" });
    expect(point.status).toBe(201);
    expect(point.body).toEqual({ name: "before-purge", status: "AVAILABLE", completed_on: expect.any(String) });
    expect((await call("GET", path("/restore-point?name=before-purge"))).body).toEqual(point.body);
    await adminQuery(projectUrl, "delete from public.item");
    const platformRows = await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.projects");
    expect(await ids()).toEqual([]);
    const undone = await call("POST", path("/undo"), { name: "before-purge" });
    expect(undone.status).toBe(201);
    expect(await ids()).toEqual(before);
    // The database's own settings and the other databases are as they were.
    expect((await graphql("{ work_mem_now }")).body).toEqual({ data: { work_mem_now: "7MB" } });
    expect(await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.projects")).toEqual(platformRows);
    const [owner] = await adminQuery(projectUrl, "select tableowner from pg_tables where tablename = 'item'");
    expect(owner.tableowner).toBe(`${ref}_owner`);
  });

  it("restores a listed backup by id, keeping the state it replaced as a backup too", async () => {
    const list = (await call("GET", path())).body.backups;
    expect(list).toEqual([{ id: expect.any(Number), is_physical_backup: false, status: "COMPLETED", inserted_at: expect.any(String) }]);
    await adminQuery(projectUrl, "insert into public.item values (500)");
    const r = await call("POST", path("/restore"), { id: list[0].id });
    expect(r.status).toBe(201);
    expect(await ids()).not.toContain(500);
    expect((await call("GET", path())).body.backups).toHaveLength(2);
  });

  it("refuses unknown backups, unknown restore points and point-in-time recovery with the reason", async () => {
    const before = await ids();
    const cases: Array<[string, unknown, number, RegExp]> = [
      ["/restore", { id: 999999 }, 400, /has no backup 999999/],
      ["/restore", { id: "1" }, 400, /id/],
      ["/undo", { name: "nowhere" }, 400, /no restore point named nowhere/],
      ["/restore-point", { name: "x".repeat(21) }, 400, /name/],
      ["/restore-pitr", { recovery_time_target_unix: 1700000000 }, 400, /no WAL archive/],
    ];
    for (const [rest, body, status, message] of cases) {
      const r = await call("POST", path(rest), body);
      expect(r.status, rest).toBe(status);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", path("/restore-point?name=nowhere"))).status).toBe(404);
    expect(await ids()).toEqual(before);
  });

  it("takes the daily backup at the scheduled time", async () => {
    expect((await call("GET", path("/schedule"))).body).toMatchObject({ schedule_for: "04:00:00" });
    const bad = await call("PATCH", path("/schedule"), { schedule_for: "25:00:00" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/HH:MM:SS/);
    const set = await call("PATCH", path("/schedule"), { schedule_for: "03:30:00" });
    expect(set.body).toEqual({ schedule_for: "03:30:00", updated_at: expect.any(String) });
    const count = (await call("GET", path())).body.backups.length;
    await sweep(platform.running.services);
    expect((await call("GET", path())).body.backups).toHaveLength(count);
    clock += 24 * 3600 * 1000;
    await sweep(platform.running.services);
    await sweep(platform.running.services);
    expect((await call("GET", path())).body.backups).toHaveLength(count + 1);
    // Seven more days: the first daily backup is the eighth newest, so its dump goes.
    for (let day = 2; day <= 8; day++) {
      clock += 24 * 3600 * 1000;
      await sweep(platform.running.services);
    }
    const backups = (await call("GET", path())).body.backups;
    expect(backups).toHaveLength(count + 8);
    expect(backups.map((b: { status: string }) => b.status).filter((st: string) => st === "REMOVED")).toEqual(["REMOVED"]);
    expect(backups[count].status).toBe("REMOVED");
    clock -= 8 * 24 * 3600 * 1000;
  });
});

describe("network bans", () => {
  const bans = (rest = "") => `/v1/projects/${ref}/network-bans${rest}`;

  it("bans an address after repeated failed authentication at the data API, until unbanned", async () => {
    expect((await call("POST", bans("/retrieve"))).body).toEqual({ banned_ipv4_addresses: [] });
    for (let i = 0; i < 10; i++) {
      expect((await graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, "not-a-key", "{ __typename }")).status).toBe(401);
    }
    const refused = await graphql("{ __typename }");
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/127\.0\.0\.1 is banned .* after repeated failed authentication/);
    expect((await call("POST", bans("/retrieve"))).body).toEqual({ banned_ipv4_addresses: ["127.0.0.1"] });
    expect((await call("POST", bans("/retrieve/enriched"))).body).toEqual({
      banned_ipv4_addresses: [{ banned_address: "127.0.0.1", identifier: ref, type: "data_api_authentication" }],
    });
    const bad = await call("DELETE", bans(), { ipv4_addresses: ["127.0.0.1", "nope"] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/Not IP addresses: nope/);
    expect((await graphql("{ __typename }")).status).toBe(403);
    expect((await call("DELETE", bans(), { ipv4_addresses: [], requester_ip: true })).status).toBe(200);
    expect((await graphql("{ __typename }")).status).toBe(200);
    expect((await call("POST", bans("/retrieve"))).body).toEqual({ banned_ipv4_addresses: [] });
  });
});

describe("pooler and pgsodium", () => {
  it("says there is no pooler", async () => {
    const pooler = await call("GET", `/v1/projects/${ref}/config/database/pooler`);
    expect(pooler.body).toEqual([]);
    expect(pooler.headers.get("x-pooler")).toMatch(/no database router run on this server/);
    const bouncer = await call("GET", `/v1/projects/${ref}/config/database/pgbouncer`);
    expect(bouncer.status).toBe(404);
    expect(bouncer.body.message).toMatch(/No connection pooler is configured/);
    const patch = await call("PATCH", `/v1/projects/${ref}/config/database/pooler`, { default_pool_size: 10 });
    expect(patch.status).toBe(400);
  });

  it("keeps the pgsodium root key, saying that nothing uses it", async () => {
    const first = await call("GET", `/v1/projects/${ref}/pgsodium`);
    expect(first.body.root_key).toMatch(/^[0-9a-f]{64}$/);
    expect(first.headers.get("x-pgsodium")).toMatch(/^stored only/);
    expect((await call("GET", `/v1/projects/${ref}/pgsodium`)).body).toEqual(first.body);
    const key = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    expect((await call("PUT", `/v1/projects/${ref}/pgsodium`, { root_key: key })).body).toEqual({ root_key: key });
    const bad = await call("PUT", `/v1/projects/${ref}/pgsodium`, { root_key: "short" });
    expect(bad.status).toBe(400);
    expect((await call("GET", `/v1/projects/${ref}/pgsodium`)).body).toEqual({ root_key: key });
  });
});

// Project settings over real HTTP: the data API settings (page cap, exposed schemas, pool size)
// reach the project's GraphQL endpoint at once; database settings are checked by PostgreSQL and
// reach the next request; server-wide ones are refused with the reason; the database password
// is stored as a SCRAM verifier; read-only mode refuses writes until an override, which ends.
import { readFileSync, writeFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { scramVerifier } from "../../server/src/management/provision/scramVerifier";
import { loginRoleGroup } from "../../server/src/management/settings/loginRoles";
import { sweep } from "../../server/src/management/settings/sweep";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;
let anon: string;
let projectUrl: string;
let clock = Date.now();

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const graphql = (query: string) => graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, anon, query);

async function makeProject(on: TestPlatform, bearer: string, name: string): Promise<{ ref: string; anon: string }> {
  const org = await api(on.baseUrl, bearer, "POST", "/v1/organizations", { name: `${name} org` });
  const created = await api(on.baseUrl, bearer, "POST", "/v1/projects", { name, organization_slug: org.body.slug, region: "eu-west-1", db_pass: "a-password-1" });
  expect(created.status).toBe(201);
  const keys = await api(on.baseUrl, bearer, "GET", `/v1/projects/${created.body.ref}/api-keys`);
  return { ref: created.body.ref, anon: keys.body[0].api_key };
}

async function seed(projectRef: string): Promise<void> {
  const url = clusterUrl(clusterInfo(), projectRef);
  await adminQuery(
    url,
    `create table public.item (id int primary key);
     insert into public.item select generate_series(1, 5);
     grant select, insert on public.item to anon;
     grant all on public.item to ${projectRef}_owner;
     create schema api;
     create table api.gadget (id int primary key);
     insert into api.gadget values (1);
     grant usage on schema api to anon;
     grant select on api.gadget to anon;
     create function public.work_mem_now() returns text language sql stable as $$ select current_setting('work_mem') $$;
     grant execute on function public.work_mem_now() to anon;`,
  );
}

beforeAll(async () => {
  platform = await startPlatform({ now: () => clock });
  token = await platform.token("settings@example.com");
  ({ ref, anon } = await makeProject(platform, token, "settings"));
  projectUrl = clusterUrl(clusterInfo(), ref);
  await seed(ref);
});

afterAll(async () => {
  await call("DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

const itemCount = async () => (await graphql("{ itemCollection { edges { node { id } } } }")).body.data.itemCollection.edges.length;

describe("data API settings (postgrest)", () => {
  it("answers the defaults with the JWT secret, and without it after a change", async () => {
    const got = await call("GET", `/v1/projects/${ref}/postgrest`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ db_schema: "public", max_rows: 30, db_extra_search_path: "", db_pool: null, jwt_secret: expect.any(String) });
  });

  it("caps GraphQL pages at max_rows at once, keeping the schema's own comment", async () => {
    await adminQuery(projectUrl, "comment on schema public is 'shop data'");
    expect(await itemCount()).toBe(5);
    const patched = await call("PATCH", `/v1/projects/${ref}/postgrest`, { max_rows: 2 });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ db_schema: "public", max_rows: 2, db_extra_search_path: "", db_pool: null });
    expect(await itemCount()).toBe(2);
    const [comment] = await adminQuery(projectUrl, "select obj_description('public'::regnamespace, 'pg_namespace') as c");
    expect(comment.c).toBe('shop data\n@graphql({"max_rows":2})');
    await call("PATCH", `/v1/projects/${ref}/postgrest`, { max_rows: 1000 });
    expect(await itemCount()).toBe(5);
  });

  it("exposes the named schemas as the search path, and reopens the pool at its new size", async () => {
    const patched = await call("PATCH", `/v1/projects/${ref}/postgrest`, { db_schema: "api", db_extra_search_path: "public", db_pool: 3 });
    expect(patched.body).toEqual({ db_schema: "api", max_rows: 1000, db_extra_search_path: "public", db_pool: 3 });
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
      [{ max_connections: 50, work_mem: "1MB" }, /max_connections take effect only when PostgreSQL restarts/],
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
  const clinfo = clusterInfo;

  it("refuses mutations in the data API and writes in the database once over the quota", async () => {
    expect((await insert(10)).body.data.insertIntoitemCollection.affectedCount).toBe(1);
    await sweep(quota.running.services);
    const status = await api(quota.baseUrl, quotaToken, "GET", `/v1/projects/${project.ref}/readonly`);
    expect(status.body).toEqual({ enabled: true, override_enabled: false, override_active_until: "" });
    const refused = await insert(11);
    expect(refused.body.errors[0].message).toMatch(/read-only mode: mutations are refused/);
    await expect(adminQuery(clusterUrl(clinfo(), project.ref, `${project.ref}_owner`), "insert into public.item values (12)")).rejects.toThrow(/read-only transaction/);
    const reads = await graphqlAt(`${quota.baseUrl}/project/${project.ref}/graphql/v1`, project.anon, "{ itemCollection { edges { node { id } } } }");
    expect(reads.body.data.itemCollection.edges).toHaveLength(6);
  });

  it("lifts it for 15 minutes, then puts it back", async () => {
    const lifted = await api(quota.baseUrl, quotaToken, "POST", `/v1/projects/${project.ref}/readonly/temporary-disable`);
    expect(lifted.status).toBe(201);
    const status = await api(quota.baseUrl, quotaToken, "GET", `/v1/projects/${project.ref}/readonly`);
    expect(status.body).toEqual({ enabled: true, override_enabled: true, override_active_until: new Date(quotaClock + 15 * 60 * 1000).toISOString() });
    expect((await insert(13)).body.data.insertIntoitemCollection.affectedCount).toBe(1);
    await adminQuery(clusterUrl(clinfo(), project.ref, `${project.ref}_owner`), "insert into public.item values (14)");
    quotaClock += 15 * 60 * 1000;
    expect((await insert(15)).body.errors[0].message).toMatch(/read-only mode/);
    await sweep(quota.running.services);
    await expect(adminQuery(clusterUrl(clinfo(), project.ref, `${project.ref}_owner`), "insert into public.item values (16)")).rejects.toThrow(/read-only transaction/);
    expect((await api(quota.baseUrl, quotaToken, "GET", `/v1/projects/${project.ref}/readonly`)).body).toMatchObject({ enabled: true, override_enabled: false });
  });
});

describe("temporary login roles", () => {
  // The run's cluster trusts local connections: its login roles authenticate by password, as
  // VALID UNTIL only means something under password authentication.
  let hbaFile: string;
  let hbaBefore: string;
  const server = () => clusterUrl(clusterInfo());
  const asRole = (role: string, password: string) =>
    `postgresql://${role}:${encodeURIComponent(password)}@/${ref}?host=${encodeURIComponent(clusterInfo().host)}&port=${clusterInfo().port}`;
  const roleCount = async () => (await adminQuery(server(), "select count(*)::int as n from pg_roles where rolname like $1", [`${ref}_cli_%`]))[0].n;

  beforeAll(async () => {
    [{ hba_file: hbaFile }] = await adminQuery(server(), "select current_setting('hba_file') as hba_file");
    hbaBefore = readFileSync(hbaFile, "utf8");
    writeFileSync(hbaFile, `local all +${loginRoleGroup} scram-sha-256\n${hbaBefore}`);
    await adminQuery(server(), "select pg_reload_conf()");
  });
  afterAll(async () => {
    writeFileSync(hbaFile, hbaBefore);
    await adminQuery(server(), "select pg_reload_conf()");
  });

  it("makes a read-only role that logs in with its password and cannot write", async () => {
    const r = await call("POST", `/v1/projects/${ref}/cli/login-role`, { read_only: true });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ role: expect.stringMatching(new RegExp(`^${ref}_cli_`)), password: expect.any(String), ttl_seconds: 3600 });
    const rows = await adminQuery(asRole(r.body.role, r.body.password), "select count(*)::int as n from public.item");
    expect(rows[0].n).toBeGreaterThan(0);
    await expect(adminQuery(asRole(r.body.role, r.body.password), "insert into public.item values (100)")).rejects.toThrow(/read-only transaction/);
    await expect(adminQuery(asRole(r.body.role, "wrong"), "select 1")).rejects.toThrow(/password authentication failed/);
  });

  it("makes a read-write role acting as the project's owner", async () => {
    const r = await call("POST", `/v1/projects/${ref}/cli/login-role`, { read_only: false });
    const [row] = await adminQuery(asRole(r.body.role, r.body.password), "insert into public.item values (101) returning current_user as who");
    expect(row.who).toBe(`${ref}_owner`);
  });

  it("refuses a role past its VALID UNTIL, and drops roles once their time is up", async () => {
    const saved = clock;
    clock = Date.now() - 2 * 3600 * 1000;
    const stale = await call("POST", `/v1/projects/${ref}/cli/login-role`, { read_only: true });
    clock = saved;
    expect(await roleCount()).toBe(3);
    await expect(adminQuery(asRole(stale.body.role, stale.body.password), "select 1")).rejects.toThrow(/password authentication failed/);
    await sweep(platform.running.services);
    expect(await roleCount()).toBe(2);
    clock += 3600 * 1000;
    await sweep(platform.running.services);
    expect(await roleCount()).toBe(0);
    clock = saved;
  });

  it("refuses bad bodies with 400, making no role, and DELETE drops the project's roles", async () => {
    for (const body of [{}, { read_only: "yes" }]) {
      const r = await call("POST", `/v1/projects/${ref}/cli/login-role`, body);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/read_only/);
    }
    expect(await roleCount()).toBe(0);
    const made = await call("POST", `/v1/projects/${ref}/cli/login-role`, { read_only: false });
    const session = new pg.Client({ connectionString: asRole(made.body.role, made.body.password) });
    session.on("error", () => {});
    await session.connect();
    const deleted = await call("DELETE", `/v1/projects/${ref}/cli/login-role`);
    expect(deleted.body).toEqual({ message: "ok" });
    expect(await roleCount()).toBe(0);
    await expect(session.query("select 1")).rejects.toThrow();
    await session.end().catch(() => {});
  });
});

describe("network restrictions", () => {
  const path = () => `/v1/projects/${ref}/network-restrictions`;
  const hbaRules = async () =>
    (await adminQuery(clusterUrl(clusterInfo()), "select address, auth_method from pg_hba_file_rules where $1 = any(database) order by line_number", [ref])).map(
      (r) => `${r.address} ${r.auth_method}`,
    );

  it("answers no restriction at first", async () => {
    const r = await call("GET", path());
    expect(r.body).toEqual({ entitlement: "allowed", config: { dbAllowedCidrs: ["0.0.0.0/0"], dbAllowedCidrsV6: ["::/0"] }, status: "applied" });
  });

  it("blocks the data API from outside the networks and writes the database's pg_hba.conf block", async () => {
    const r = await call("POST", `${path()}/apply`, { dbAllowedCidrs: ["10.0.0.0/8"], dbAllowedCidrsV6: ["2001:db8::/32"] });
    expect(r.status).toBe(201);
    expect(r.headers.get("x-database-enforcement")).toBe("applied");
    expect(r.body).toMatchObject({ config: { dbAllowedCidrs: ["10.0.0.0/8"], dbAllowedCidrsV6: ["2001:db8::/32"] }, status: "applied" });
    const blocked = await graphql("{ __typename }");
    expect(blocked.status).toBe(403);
    expect(blocked.body.message).toMatch(/network restrictions do not allow requests from 127\.0\.0\.1/);
    expect(await hbaRules()).toEqual(["10.0.0.0 scram-sha-256", "2001:db8:: scram-sha-256", "0.0.0.0 reject", ":: reject"]);
    const patched = await call("PATCH", path(), { add: { dbAllowedCidrs: ["127.0.0.0/8"] }, remove: { dbAllowedCidrsV6: ["2001:db8::/32"] } });
    expect(patched.status).toBe(200);
    expect(patched.body.config.dbAllowedCidrs).toEqual([
      { address: "10.0.0.0/8", type: "v4" },
      { address: "127.0.0.0/8", type: "v4" },
    ]);
    expect((await graphql("{ __typename }")).status).toBe(200);
  });

  it("refuses bad CIDRs with 400, changing nothing", async () => {
    const before = (await call("GET", path())).body;
    const rules = await hbaRules();
    const cases: Array<[unknown, RegExp]> = [
      [{ dbAllowedCidrs: ["10.0.0.1/8"] }, /dbAllowedCidrs: invalid cidr value/],
      [{ dbAllowedCidrs: ["nonsense"] }, /dbAllowedCidrs: invalid input syntax for type cidr/],
      [{ dbAllowedCidrs: ["2001:db8::/32"] }, /not an IPv4 network/],
      [{ dbAllowedCidrsV6: ["10.0.0.0/8"] }, /not an IPv6 network/],
      [{ dbAllowedCidrs: "10.0.0.0/8" }, /dbAllowedCidrs/],
    ];
    for (const [body, message] of cases) {
      const r = await call("POST", `${path()}/apply`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", path())).body).toEqual(before);
    expect(await hbaRules()).toEqual(rules);
  });

  it("removes the block when every network is allowed again", async () => {
    await call("POST", `${path()}/apply`, { dbAllowedCidrs: ["0.0.0.0/0"], dbAllowedCidrsV6: ["::/0"] });
    expect(await hbaRules()).toEqual([]);
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
    expect(owner.tableowner).toBe("postgres");
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
    clock -= 24 * 3600 * 1000;
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

describe("SSL enforcement, pooler and pgsodium", () => {
  it("keeps SSL optional on a server without SSL, and refuses to require it", async () => {
    expect((await call("GET", `/v1/projects/${ref}/ssl-enforcement`)).body).toEqual({ currentConfig: { database: false }, appliedSuccessfully: true });
    const refused = await call("PUT", `/v1/projects/${ref}/ssl-enforcement`, { requestedConfig: { database: true } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/SSL turned off/);
    const bad = await call("PUT", `/v1/projects/${ref}/ssl-enforcement`, { requestedConfig: {} });
    expect(bad.status).toBe(400);
    const off = await call("PUT", `/v1/projects/${ref}/ssl-enforcement`, { requestedConfig: { database: false } });
    expect(off.body).toEqual({ currentConfig: { database: false }, appliedSuccessfully: true });
  });

  it("says there is no pooler", async () => {
    expect((await call("GET", `/v1/projects/${ref}/config/database/pooler`)).body).toEqual([]);
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

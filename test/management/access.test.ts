// Database access over real HTTP: temporary login roles and just-in-time role grants that log in
// by password (SCRAM) and stop working when their time is up, and network restrictions enforced
// by the data API and by the managed pg_hba.conf block. These tests change the run's pg_hba.conf,
// so they share one file (run in order).
import { readFileSync, writeFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { jitLoginRole } from "../../server/src/management/access/jitAccess";
import { loginRoleGroup } from "../../server/src/management/access/loginRoles";
import { sweep } from "../../server/src/management/sweep";
import { adminQuery, clusterUrl, type TestPlatform } from "./support";
import { settingsContext, type SettingsContext } from "./settingsSupport";

let ctx: SettingsContext;
let platform: TestPlatform;
let token: string;
let ref: string;
let clock = Date.now();

const call = (method: string, path: string, body?: unknown) => ctx.call(method, path, body);
const graphql = (query: string) => ctx.graphql(query);

beforeAll(async () => {
  ctx = await settingsContext("access@example.com", "access", () => clock);
  ({ platform, token, ref } = ctx);
});
afterAll(() => ctx.close());

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

  it("grants a role just in time to a member, from the allowed networks, until it expires", async () => {
    const jit = (rest = "") => `/v1/projects/${ref}/database/jit${rest}`;
    const slug = (await call("GET", `/v1/projects/${ref}`)).body.organization_slug;
    const me = (await call("GET", `/v1/organizations/${slug}/members`)).body[0].user_id as string;
    expect((await call("GET", `/v1/projects/${ref}/jit-access`)).body).toEqual({ state: "disabled", appliedSuccessfully: true });
    expect((await call("POST", jit(), { role: "postgres", rhost: "127.0.0.1" })).body.message).toMatch(/disabled/);
    expect((await call("PUT", `/v1/projects/${ref}/jit-access`, { state: "enabled" })).body).toEqual({ state: "enabled", appliedSuccessfully: true });
    const expires = Math.floor(clock / 1000) + 3600;
    const grant = { role: "postgres", expires_at: expires, allowed_networks: { allowed_cidrs: [{ cidr: "127.0.0.0/8" }] } };
    const bad: Array<[unknown, RegExp]> = [
      [{ user_id: me, roles: [{ role: "pg_read_server_files" }] }, /cannot be granted/],
      [{ user_id: me, roles: [{ role: "postgres", allowed_networks: { allowed_cidrs: [{ cidr: "10.0.0.1/8" }] } }] }, /invalid cidr value/],
      [{ user_id: "55555555-5555-4555-8555-555555555555", roles: [grant] }, /not a member/],
    ];
    for (const [body, message] of bad) {
      const r = await call("PUT", jit(), body);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", jit("/list"))).body).toEqual({ items: [] });
    const put = await call("PUT", jit(), { user_id: me, roles: [grant] });
    expect(put.body).toEqual({ user_id: me, user_roles: [{ ...grant, allowed_networks: { allowed_cidrs: [{ cidr: "127.0.0.0/8" }], allowed_cidrs_v6: [] } }] });
    expect((await call("POST", jit(), { role: "postgres", rhost: "10.1.1.1" })).body.message).toMatch(/not in the networks allowed/);
    expect((await call("POST", jit(), { role: "anon", rhost: "127.0.0.1" })).body.message).toMatch(/no current just-in-time grant/);
    const authorized = await call("POST", jit(), { role: "postgres", rhost: "127.0.0.1" });
    expect(authorized.status).toBe(200);
    expect(authorized.body).toEqual({ user_id: me, user_role: put.body.user_roles[0] });
    const login = jitLoginRole(ref, me);
    const [row] = await adminQuery(asRole(login, token), "select pg_has_role($1, 'member') as member", [`${ref}_owner`]);
    expect(row.member).toBe(true);
    expect((await call("GET", jit("/list"))).body.items).toEqual([put.body]);
    clock += 2 * 3600 * 1000;
    await sweep(platform.running.services);
    clock -= 2 * 3600 * 1000;
    await expect(adminQuery(asRole(login, token), "select 1")).rejects.toThrow(/does not exist/);
    expect((await call("GET", jit())).body).toEqual({ user_id: me, user_roles: [] });
    await call("PUT", jit(), { user_id: me, roles: [grant] });
    await call("POST", jit(), { role: "postgres", rhost: "127.0.0.1" });
    expect((await call("DELETE", jit(`/${me}`))).status).toBe(200);
    expect((await call("GET", jit("/list"))).body).toEqual({ items: [] });
    expect(await adminQuery(server(), "select 1 from pg_roles where rolname = $1", [login])).toEqual([]);
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

describe("SSL enforcement", () => {
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

});

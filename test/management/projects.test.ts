// The Management API's core path over real HTTP: a token from the token command, an organization,
// a project made as a database from the template, its anon key, a GraphQL query at its own
// endpoint, and a delete that leaves no database, role or record behind.
import { allHandlers } from "../../server/src/management/areas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { runTokenCommand } from "../../server/src/management/cli/tokenCommand";
import { migrate } from "../../server/src/management/platform/migrate";
import { migrations } from "../../server/src/management/platform/migrations/index";
import { SqlPool } from "../../server/src/management/platform/sql";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, tracesOf, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("owner@example.com");
});
afterAll(async () => platform.close());

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);

describe("tokens", () => {
  it("prints sbp_ and 40 hex digits and stores only a hash", async () => {
    expect(token).toMatch(/^sbp_[a-f0-9]{40}$/);
    const rows = await adminQuery(platform.platformUrl, "select token_hash from platform.access_tokens");
    expect(rows.map((r) => r.token_hash)).not.toContain(token);
    expect(rows.every((r) => /^[a-f0-9]{64}$/.test(r.token_hash))).toBe(true);
  });

  it("refuses a missing, malformed or unknown token with 401 and a message", async () => {
    for (const header of [undefined, "Bearer", "Basic abc", "Bearer sbp_123", `Bearer sbp_${"0".repeat(40)}`]) {
      const r = await api(platform.baseUrl, undefined, "GET", "/v1/organizations", undefined, header ? { authorization: header } : {});
      expect(r.status).toBe(401);
      expect(typeof r.body.message).toBe("string");
    }
  });

  it("keeps the platform database closed to PUBLIC", async () => {
    const [row] = await adminQuery(platform.platformUrl, "select has_database_privilege('public', current_database(), 'connect') as open");
    expect(row.open).toBe(false);
  });

  it("lists a user's tokens without their secrets, and a revoked token is refused", async () => {
    const second = await platform.token("owner@example.com");
    expect((await api(platform.baseUrl, second, "GET", "/v1/profile")).status).toBe(200);
    const listed = await runTokenCommand(platform.platformUrl, { kind: "list", email: "owner@example.com" });
    expect(listed.trim().split("\n")).toHaveLength(2);
    expect(listed).not.toContain("sbp_");
    const [row] = await adminQuery(platform.platformUrl, "select id::text from platform.access_tokens order by created_at desc limit 1");
    expect(await runTokenCommand(platform.platformUrl, { kind: "revoke", id: row.id })).toBe(`revoked ${row.id}\n`);
    const refused = await api(platform.baseUrl, second, "GET", "/v1/profile");
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/revoked/);
    await expect(runTokenCommand(platform.platformUrl, { kind: "revoke", id: row.id })).rejects.toThrow(/no live token/);
    expect((await call("GET", "/v1/profile")).status).toBe(200);
  });

  it("answers the profile of the token's user", async () => {
    const r = await call("GET", "/v1/profile");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ primary_email: "owner@example.com", username: "owner" });
  });
});

describe("organizations and projects", () => {
  let slug: string;
  let ref: string;

  it("creates an organization owned by its creator", async () => {
    const created = await call("POST", "/v1/organizations", { name: "Acme" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: created.body.slug, slug: expect.stringMatching(/^[a-z]{20}$/), name: "Acme" });
    slug = created.body.slug;
    expect((await call("GET", "/v1/organizations")).body).toEqual([created.body]);
    expect((await call("GET", `/v1/organizations/${slug}`)).body).toEqual({
      id: slug,
      name: "Acme",
      plan: "free",
      opt_in_tags: [],
      allowed_release_channels: ["ga"],
    });
    const members = await call("GET", `/v1/organizations/${slug}/members`);
    expect(members.body).toEqual([
      { user_id: expect.any(String), user_name: "owner", email: "owner@example.com", role_name: "Owner", mfa_enabled: false },
    ]);
  });

  it("creates a project as a database with its own roles", async () => {
    const created = await call("POST", "/v1/projects", { name: "shop", organization_slug: slug, region: "eu-west-1", db_pass: "a-password-1" });
    expect(created.status).toBe(201);
    ref = created.body.ref;
    expect(ref).toMatch(/^[a-z]{20}$/);
    expect(created.body).toMatchObject({ id: ref, organization_id: slug, organization_slug: slug, name: "shop", region: "eu-west-1", status: "ACTIVE_HEALTHY" });
    const traces = await tracesOf(clusterUrl(clusterInfo()), ref);
    expect(traces.databases).toEqual([ref]);
    // The platform's own logins are made with it: the owner's default privileges are set on one.
    expect(traces.roles.sort()).toEqual([`${ref}_authenticator`, `${ref}_login`, `${ref}_owner`, `${ref}_readonly`]);
    const owner = await adminQuery(clusterUrl(clusterInfo()), "select r.rolname from pg_database d join pg_roles r on r.oid = d.datdba where d.datname = $1", [ref]);
    expect(owner).toEqual([{ rolname: `${ref}_owner` }]);
  });

  it("accepts the older organization_id and a region selection", async () => {
    const created = await call("POST", "/v1/projects", {
      name: "older-client",
      organization_id: slug,
      region_selection: { type: "specific", code: "sa-east-1" },
      db_pass: "pw",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ organization_slug: slug, region: "sa-east-1" });
    expect((await call("DELETE", `/v1/projects/${created.body.ref}`)).status).toBe(200);
  });

  it("gets and lists the project with its database", async () => {
    const got = await call("GET", `/v1/projects/${ref}`);
    expect(got.status).toBe(200);
    expect(got.body.database).toEqual({ host: clusterInfo().host, version: expect.stringMatching(/^15\./), postgres_engine: "15", release_channel: "ga" });
    expect((await call("GET", "/v1/projects")).body).toEqual([got.body]);
    const inOrg = await call("GET", `/v1/organizations/${slug}/projects`);
    expect(inOrg.body.pagination).toEqual({ count: 1, limit: 100, offset: 0 });
    expect(inOrg.body.projects[0]).toMatchObject({ ref, name: "shop", status: "ACTIVE_HEALTHY", is_branch: false });
  });

  it("renames the project", async () => {
    const r = await call("PATCH", `/v1/projects/${ref}`, { name: "store" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: expect.any(Number), ref, name: "store" });
    expect((await call("GET", `/v1/projects/${ref}`)).body.name).toBe("store");
  });

  it("serves the project's GraphQL with its anon key, and refuses another project's key", async () => {
    const keys = await call("GET", `/v1/projects/${ref}/api-keys`);
    expect(keys.status).toBe(200);
    expect(keys.body.map((k: { name: string }) => k.name)).toEqual(["anon", "service_role"]);
    const anon = keys.body[0].api_key as string;
    const r = await graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, anon, "{ __typename }");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { __typename: "Query" } });
    const unknown = await graphqlAt(`${platform.baseUrl}/project/${"z".repeat(20)}/graphql/v1`, anon, "{ __typename }");
    expect(unknown.status).toBe(404);
  });

  it("reports the health of the services it runs, and the others as not run", async () => {
    const r = await call("GET", `/v1/projects/${ref}/health?services=db&services=rest&services=db_postgres_user&services=auth&timeout_ms=5000`);
    expect(r.status).toBe(200);
    const byName = Object.fromEntries(r.body.map((h: { name: string }) => [h.name, h]));
    expect(byName.db).toMatchObject({ healthy: true, status: "ACTIVE_HEALTHY" });
    expect(byName.rest).toMatchObject({ healthy: true, status: "ACTIVE_HEALTHY", info: { db_schema: "public" } });
    expect(byName.db_postgres_user).toMatchObject({ healthy: true, status: "ACTIVE_HEALTHY" });
    expect(byName.auth).toMatchObject({ healthy: false, status: "UNHEALTHY", error: expect.stringMatching(/not a service/) });
  });

  it("takes the list of services comma-separated too, and still refuses an unknown one", async () => {
    const r = await call("GET", `/v1/projects/${ref}/health?services=db,rest`);
    expect(r.status).toBe(200);
    expect(r.body.map((h: { name: string }) => h.name)).toEqual(["db", "rest"]);
    const mixed = await call("GET", `/v1/projects/${ref}/health?services=db,rest&services=auth`);
    expect(mixed.body.map((h: { name: string }) => h.name)).toEqual(["db", "rest", "auth"]);
    const bad = await call("GET", `/v1/projects/${ref}/health?services=db,nosuch`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/services/);
  });

  it("pauses the project: the database refuses connections and the data API answers 503", async () => {
    const anon = (await call("GET", `/v1/projects/${ref}/api-keys`)).body[0].api_key as string;
    const endpoint = `${platform.baseUrl}/project/${ref}/graphql/v1`;
    expect((await graphqlAt(endpoint, anon, "{ __typename }")).status).toBe(200);
    const paused = await call("POST", `/v1/projects/${ref}/pause`);
    expect(paused.status).toBe(200);
    expect((await call("GET", `/v1/projects/${ref}`)).body.status).toBe("INACTIVE");
    const refused = await graphqlAt(endpoint, anon, "{ __typename }");
    expect(refused.status).toBe(503);
    expect(refused.body.message).toMatch(/not available/);
    const allowed = await adminQuery(clusterUrl(clusterInfo()), "select datallowconn from pg_database where datname = $1", [ref]);
    expect(allowed).toEqual([{ datallowconn: false }]);
    const health = await call("GET", `/v1/projects/${ref}/health?services=db`);
    expect(health.body).toEqual([{ name: "db", healthy: false, status: "UNHEALTHY", error: "the project is paused" }]);
    expect((await call("POST", `/v1/projects/${ref}/pause`)).status).toBe(400);
    expect((await call("GET", `/v1/projects/${ref}/restore`)).body.available_versions).toHaveLength(1);
  });

  it("restores the project: its data API works again", async () => {
    const anon = (await call("GET", `/v1/projects/${ref}/api-keys`)).body[0].api_key as string;
    const restored = await call("POST", `/v1/projects/${ref}/restore`);
    expect(restored.status).toBe(200);
    expect((await call("GET", `/v1/projects/${ref}`)).body.status).toBe("ACTIVE_HEALTHY");
    const r = await graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, anon, "{ __typename }");
    expect(r.body).toEqual({ data: { __typename: "Query" } });
    const again = await call("POST", `/v1/projects/${ref}/restore`);
    expect(again.status).toBe(400);
    expect((await call("POST", `/v1/projects/${ref}/restore/cancel`)).status).toBe(400);
  });

  it("deletes the project and every trace of it", async () => {
    const r = await call("DELETE", `/v1/projects/${ref}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: expect.any(Number), ref, name: "store" });
    expect(await tracesOf(clusterUrl(clusterInfo()), ref)).toEqual({ databases: [], roles: [] });
    expect(await adminQuery(platform.platformUrl, "select 1 from platform.projects where ref = $1", [ref])).toEqual([]);
    expect((await call("GET", `/v1/projects/${ref}`)).status).toBe(403);
  });
});

describe("platform migrations", () => {
  it("apply each version once, in order, and record it", async () => {
    const pool = new SqlPool(platform.platformUrl, 2);
    try {
      expect(await migrate(pool)).toEqual([]);
      const next = { version: Math.max(...migrations.map((m) => m.version)) + 1, name: "probe", sql: "create table platform.migration_probe (id int)" };
      expect(await migrate(pool, [...migrations, next])).toEqual([next.version]);
      expect(await migrate(pool, [...migrations, next])).toEqual([]);
      const applied = await pool.rows<{ version: number; name: string }>("select version, name from public.platform_migrations order by version");
      expect(applied.map((m) => m.version)).toEqual([...migrations.map((m) => m.version), next.version]);
    } finally {
      await pool.end();
    }
  });
});

describe("the OpenAPI document", () => {
  it("serves the implemented operations only", async () => {
    const r = await api(platform.baseUrl, undefined, "GET", "/v1/openapi.json");
    expect(r.status).toBe(200);
    const ids = Object.values(r.body.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
    expect(ids).toContain("v1-create-a-project");
    // Exactly the operations that have handlers, each once whatever paths serve it.
    expect([...new Set(ids)].sort()).toEqual([...allHandlers().keys()].sort());
  });
});

// database/migrations over HTTP against a real project database: apply and record in one
// transaction (the project's GraphQL sees the change on its next request), a failed migration
// leaves nothing, CONCURRENTLY refused with the documented path, Idempotency-Key, PUT, GET and
// PATCH of one version, rollback by `gte`, and history shared with the CLI's table.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { adminQuery, api, clusterUrl, createProject, graphqlAt, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api(platform.baseUrl, token, method, `/v1/projects/${ref}/${path}`, body, headers);
const adminRows = (sql: string) => adminQuery(clusterUrl(clusterInfo(), ref), sql);
const history = async () => (await call("GET", "database/migrations")).body as { version: string; name: string }[];
const tableExists = async (name: string) => (await adminRows(`select to_regclass('public.${name}') is not null as found`))[0].found as boolean;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("migrations@example.com");
  ref = (await createProject(platform.baseUrl, token, "migrations")).ref;
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

describe("database/migrations", () => {
  let version: string;

  it("starts with an empty history", async () => {
    const r = await call("GET", "database/migrations");
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
  });

  it("applies and records a migration; the project's GraphQL sees it on its next request", async () => {
    const keys = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys`)).body as { name: string; api_key: string }[];
    const anon = keys.find((k) => k.name === "anon")!.api_key;
    const endpoint = `${platform.baseUrl}/project/${ref}/graphql/v1`;
    const probe = "{ widgetCollection(first: 5) { edges { node { id label } } } }";
    const before = await graphqlAt(endpoint, anon, probe);
    expect(before.body.errors?.length).toBeGreaterThan(0);

    const r = await call("POST", "database/migrations", {
      query: "create table public.widget (id int primary key, label text);\ninsert into public.widget values (1, 'first');",
      name: "create_widget",
      rollback: "drop table public.widget;",
    });
    expect(r.status).toBe(200);
    const list = await history();
    expect(list).toHaveLength(1);
    expect(list[0]!.name).toBe("create_widget");
    expect(list[0]!.version).toMatch(/^\d{14}$/);
    version = list[0]!.version;

    const after = await graphqlAt(endpoint, anon, probe);
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ data: { widgetCollection: { edges: [{ node: { id: 1, label: "first" } }] } } });
  });

  it("answers one version with its statements and rollback", async () => {
    const r = await call("GET", `database/migrations/${version}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      version,
      name: "create_widget",
      statements: ["create table public.widget (id int primary key, label text)", "insert into public.widget values (1, 'first')"],
      rollback: ["drop table public.widget"],
      created_by: "migrations@example.com",
    });
    expect((await call("GET", "database/migrations/1")).status).toBe(404);
  });

  it("applies and records nothing when a statement fails", async () => {
    const r = await call("POST", "database/migrations", { query: "create table public.half (id int); insert into public.missing values (1);", name: "broken" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('relation "public.missing" does not exist');
    expect(await tableExists("half")).toBe(false);
    expect(await history()).toHaveLength(1);
  });

  it("refuses CREATE INDEX CONCURRENTLY and transaction control with the way to do it", async () => {
    const r = await call("POST", "database/migrations", { query: "create table public.other (x int); create index concurrently on public.widget (label)" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("CREATE INDEX CONCURRENTLY cannot be part of a migration");
    expect(r.body.message).toContain(`POST /v1/projects/${ref}/database/query`);
    expect(await tableExists("other")).toBe(false);
    const commit = await call("POST", "database/migrations", { query: "create table public.other (x int); commit; insert into public.widget values (2)" });
    expect(commit.status).toBe(400);
    expect(commit.body.message).toContain("transaction control");
    expect(await tableExists("other")).toBe(false);

    // The documented path: run it alone, then record it without applying.
    const index = "create index concurrently widget_label on public.widget (label)";
    expect((await call("POST", "database/query", { query: index })).status).toBe(201);
    expect((await call("PUT", "database/migrations", { query: index, name: "widget_label" })).status).toBe(200);
    expect((await history()).map((m) => m.name)).toEqual(["create_widget", "widget_label"]);
    expect(await adminRows("select indexname from pg_indexes where indexname = 'widget_label'")).toHaveLength(1);
  });

  it("applies a migration once per Idempotency-Key", async () => {
    const body = { query: "insert into public.widget values (10, 'keyed')", name: "keyed", rollback: "delete from public.widget where id = 10" };
    const headers = { "Idempotency-Key": "key-1" };
    expect((await call("POST", "database/migrations", body, headers)).status).toBe(200);
    expect((await call("POST", "database/migrations", body, headers)).status).toBe(200);
    expect(await adminRows("select count(*)::int as n from public.widget where id = 10")).toEqual([{ n: 1 }]);
    const keyed = (await history()).filter((m) => m.name === "keyed");
    expect(keyed).toHaveLength(1);
    expect((await call("GET", `database/migrations/${keyed[0]!.version}`)).body.idempotency_key).toBe("key-1");
  });

  it("patches a version's name and rollback", async () => {
    const target = (await history()).find((m) => m.name === "widget_label")!.version;
    const r = await call("PATCH", `database/migrations/${target}`, { name: "label_index", rollback: "drop index public.widget_label" });
    expect(r.status).toBe(200);
    const got = (await call("GET", `database/migrations/${target}`)).body;
    expect(got.name).toBe("label_index");
    expect(got.rollback).toEqual(["drop index public.widget_label"]);
    expect((await call("PATCH", "database/migrations/1", { name: "x" })).status).toBe(404);
  });

  it("rolls back versions >= gte newest first, or nothing when one has no rollback", async () => {
    await call("PUT", "database/migrations", { query: "select 1", name: "no_rollback" });
    const all = await history();
    const refused = await call("DELETE", `database/migrations?gte=${version}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(all.at(-1)!.version);
    expect(await history()).toEqual(all);
    expect(await tableExists("widget")).toBe(true);

    await call("PATCH", `database/migrations/${all.at(-1)!.version}`, { rollback: "select 1" });
    const r = await call("DELETE", `database/migrations?gte=${version}`);
    expect(r.status).toBe(200);
    expect(await history()).toEqual([]);
    expect(await tableExists("widget")).toBe(false);
  });

  it("refuses bad bodies and bad SQL with 400, changing nothing", async () => {
    const cases: [string, string, unknown][] = [
      ["POST", "database/migrations", {}],
      ["POST", "database/migrations", { query: "" }],
      ["POST", "database/migrations", { query: "creat table t (x int)" }],
      ["POST", "database/migrations", { query: "-- only a comment" }],
      ["PUT", "database/migrations", { query: 5 }],
      ["DELETE", "database/migrations?gte=abc", undefined],
      ["DELETE", "database/migrations", undefined],
      ["GET", "database/migrations/abc", undefined],
      ["PATCH", "database/migrations/123", { name: 5 }],
    ];
    for (const [method, path, body] of cases) {
      const r = await call(method, path, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(typeof r.body.message).toBe("string");
    }
    expect(await history()).toEqual([]);
  });

  it("shares its history with the table the supabase CLI made", async () => {
    // The CLI's own DDL (version, statements, name), made as the project's owner.
    const cli = `create schema if not exists supabase_migrations;
      drop table if exists supabase_migrations.schema_migrations;
      create table supabase_migrations.schema_migrations (version text not null primary key);
      alter table supabase_migrations.schema_migrations add column if not exists statements text[];
      alter table supabase_migrations.schema_migrations add column if not exists name text;
      insert into supabase_migrations.schema_migrations (version, name, statements) values ('20240101000000', 'from_cli', '{"select 1"}')`;
    expect((await call("POST", "database/query", { query: cli })).status).toBe(201);
    expect(await history()).toEqual([{ version: "20240101000000", name: "from_cli" }]);
    expect((await call("POST", "database/migrations", { query: "create table public.later (x int)", name: "from_api" })).status).toBe(200);
    expect((await history()).map((m) => m.name)).toEqual(["from_cli", "from_api"]);
  });
});

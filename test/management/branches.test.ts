// Branches over real HTTP on real databases: a branch with data has the parent's rows, one
// without has its schema from the replayed migrations; a migration made on a branch and merged
// appears on the parent and in its GraphQL; reset, diff, action runs with logs; delete.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, tracesOf, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let parent: string;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const dbUrl = (ref: string) => clusterUrl(clusterInfo(), ref);

/** Runs a migration on a project's database as its owner and records it as the CLI does. */
async function migrateProject(ref: string, version: string, statements: string[]): Promise<void> {
  const sql = [
    "begin",
    "create schema if not exists supabase_migrations",
    "create table if not exists supabase_migrations.schema_migrations (version text not null primary key, statements text[], name text)",
    `set local role "${ref}_owner"`,
    ...statements,
    "reset role",
    "commit",
  ].join(";\n");
  await adminQuery(dbUrl(ref), sql);
  await adminQuery(dbUrl(ref), "insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)", [version, `m${version}`, statements]);
}

const branchOf = async (name: string, withData: boolean) => {
  const r = await call("POST", `/v1/projects/${parent}/branches`, { branch_name: name, with_data: withData, git_branch: `feature/${name}` });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; project_ref: string; status: string };
};

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("branches@example.com");
  const slug = (await call("POST", "/v1/organizations", { name: "Branch Org" })).body.slug;
  parent = (await call("POST", "/v1/projects", { name: "trunk", organization_slug: slug, db_pass: "pw-trunk-1", region: "us-east-1" })).body.ref;
  await migrateProject(parent, "20250101000000", ["create table public.notes (id int primary key, body text not null)"]);
  await adminQuery(dbUrl(parent), "insert into public.notes values (1, 'kept'), (2, 'also kept')");
});
afterAll(async () => {
  for (const p of (await call("GET", "/v1/projects")).body ?? []) await call("DELETE", `/v1/projects/${p.ref}`);
  await platform.close();
});

describe("branches", () => {
  let dataBranch: { id: string; project_ref: string; status: string };
  let schemaBranch: { id: string; project_ref: string; status: string };

  it("with data: a copy of the parent's database, owned by the branch's own role", async () => {
    dataBranch = await branchOf("with-rows", true);
    expect(dataBranch).toMatchObject({ status: "MIGRATIONS_PASSED", with_data: true, parent_project_ref: parent, is_default: false });
    const rows = await adminQuery(dbUrl(dataBranch.project_ref), "select body from public.notes order by id");
    expect(rows.map((r) => r.body)).toEqual(["kept", "also kept"]);
    const [owner] = await adminQuery(dbUrl(dataBranch.project_ref), "select tableowner from pg_tables where tablename = 'notes'");
    expect(owner.tableowner).toBe(`${dataBranch.project_ref}_owner`);
  });

  it("with data while another session holds the parent: copied by dump and restore", async () => {
    const held = new pg.Client({ connectionString: dbUrl(parent) });
    await held.connect();
    try {
      const busy = await branchOf("while-busy", true);
      const rows = await adminQuery(dbUrl(busy.project_ref), "select body from public.notes order by id");
      expect(rows.map((r) => r.body)).toEqual(["kept", "also kept"]);
      const [owner] = await adminQuery(dbUrl(busy.project_ref), "select tableowner from pg_tables where tablename = 'notes'");
      expect(owner.tableowner).toBe(`${busy.project_ref}_owner`);
      const anon = (await call("GET", `/v1/projects/${busy.project_ref}/api-keys`)).body[0].api_key as string;
      const gql = await graphqlAt(`${platform.baseUrl}/project/${busy.project_ref}/graphql/v1`, anon, "{ notesCollection { edges { node { body } } } }");
      expect(gql.body.data.notesCollection.edges).toHaveLength(2);
      expect((await call("DELETE", `/v1/branches/${busy.project_ref}`)).status).toBe(200);
    } finally {
      await held.end();
    }
  });

  it("without data: the parent's migrations replayed on an empty database", async () => {
    schemaBranch = await branchOf("schema-only", false);
    expect(schemaBranch.status).toBe("MIGRATIONS_PASSED");
    expect(await adminQuery(dbUrl(schemaBranch.project_ref), "select * from public.notes")).toEqual([]);
    const history = await adminQuery(dbUrl(schemaBranch.project_ref), "select version from supabase_migrations.schema_migrations");
    expect(history).toEqual([{ version: "20250101000000" }]);
  });

  it("lists, gets by name, and answers a config whose credentials connect", async () => {
    const listed = await call("GET", `/v1/projects/${parent}/branches`);
    expect(listed.body.map((b: { name: string }) => b.name)).toEqual(["with-rows", "schema-only"]);
    expect((await call("GET", `/v1/projects/${parent}/branches/schema-only`)).body.id).toBe(schemaBranch.id);
    const config = await call("GET", `/v1/branches/${schemaBranch.project_ref}`);
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({ ref: schemaBranch.project_ref, db_user: `${schemaBranch.project_ref}_owner`, status: "ACTIVE_HEALTHY" });
    const info = clusterInfo();
    const url = `postgresql://${config.body.db_user}:${encodeURIComponent(config.body.db_pass)}@/${schemaBranch.project_ref}?host=${encodeURIComponent(info.host)}&port=${config.body.db_port}`;
    expect(await adminQuery(url, "select current_user as u")).toEqual([{ u: config.body.db_user }]);
    expect(typeof config.body.jwt_secret).toBe("string");
  });

  it("diffs and merges a branch's migration into the parent, whose GraphQL then has it", async () => {
    await migrateProject(schemaBranch.project_ref, "20250202000000", ["create table public.tags (id int primary key, label text)", "insert into public.tags values (1, 'from-branch')"]);
    const diff = await call("GET", `/v1/branches/${schemaBranch.project_ref}/diff`);
    expect(diff.status).toBe(200);
    expect(diff.body).toMatch(/create table "public"\."tags"/i);

    const merged = await call("POST", `/v1/branches/${schemaBranch.project_ref}/merge`, {});
    expect(merged.status, JSON.stringify(merged.body)).toBe(201);
    expect(merged.body.message).toBe("ok");
    const anon = (await call("GET", `/v1/projects/${parent}/api-keys`)).body[0].api_key as string;
    const gql = await graphqlAt(`${platform.baseUrl}/project/${parent}/graphql/v1`, anon, "{ tagsCollection { edges { node { label } } } }");
    expect(gql.body).toEqual({ data: { tagsCollection: { edges: [{ node: { label: "from-branch" } }] } } });

    const run = await call("GET", `/v1/projects/${schemaBranch.project_ref}/actions/${merged.body.workflow_run_id}`);
    expect(run.body.run_steps[0]).toMatchObject({ name: "migrate", status: "EXITED" });
    const logs = await call("GET", `/v1/projects/${schemaBranch.project_ref}/actions/${merged.body.workflow_run_id}/logs`);
    expect(logs.body).toContain("applying migration 20250202000000");
    expect((await call("GET", `/v1/branches/${schemaBranch.project_ref}/diff`)).body ?? "").toBe("");
  });

  it("reports a failing merge as a dead run, changing nothing on the parent", async () => {
    await migrateProject(schemaBranch.project_ref, "20250303000000", ["create table public.bad (id int)"]);
    await adminQuery(dbUrl(schemaBranch.project_ref), "update supabase_migrations.schema_migrations set statements = array['create table public.half (id int)', 'select * from no_such_table'] where version = '20250303000000'");
    const merged = await call("POST", `/v1/branches/${schemaBranch.project_ref}/merge`, {});
    const run = await call("GET", `/v1/projects/${schemaBranch.project_ref}/actions/${merged.body.workflow_run_id}`);
    expect(run.body.run_steps[0].status).toBe("DEAD");
    expect(await adminQuery(dbUrl(parent), "select to_regclass('public.half') as t")).toEqual([{ t: null }]);
  });

  it("resets a branch to the parent's migrations", async () => {
    const reset = await call("POST", `/v1/branches/${schemaBranch.project_ref}/reset`, {});
    expect(reset.status).toBe(201);
    expect(await adminQuery(dbUrl(schemaBranch.project_ref), "select to_regclass('public.bad') as t")).toEqual([{ t: null }]);
    const versions = await adminQuery(dbUrl(schemaBranch.project_ref), "select version from supabase_migrations.schema_migrations order by 1");
    expect(versions.map((v) => v.version)).toEqual(["20250101000000", "20250202000000"]);
    const runs = await call("GET", `/v1/projects/${schemaBranch.project_ref}/actions`);
    expect(runs.body.length).toBe(4);
    const counted = await call("HEAD", `/v1/projects/${schemaBranch.project_ref}/actions`);
    expect(counted.status).toBe(200);
    expect(counted.headers.get("x-total-count")).toBe("4");
  });

  it("refuses bad requests with clear errors", async () => {
    const dup = await call("POST", `/v1/projects/${parent}/branches`, { branch_name: "with-rows" });
    expect(dup.status).toBe(409);
    expect((await call("POST", `/v1/projects/${parent}/branches`, {})).status).toBe(400);
    expect((await call("GET", `/v1/branches/${"z".repeat(20)}`)).status).toBe(403);
    expect((await call("GET", `/v1/projects/${parent}/branches/nope`)).status).toBe(404);
    const push = await call("POST", `/v1/branches/${schemaBranch.project_ref}/push`, {});
    expect(push.status).toBe(400);
    expect(push.body.message).toMatch(/git/);
    const stranger = await platform.token("stranger@example.com");
    expect((await api(platform.baseUrl, stranger, "GET", `/v1/branches/${schemaBranch.project_ref}`)).status).toBe(403);
  });

  it("deletes a branch with its database and roles", async () => {
    const r = await call("DELETE", `/v1/branches/${dataBranch.project_ref}`);
    expect(r.body).toEqual({ message: "ok" });
    expect(await tracesOf(clusterUrl(clusterInfo()), dataBranch.project_ref)).toEqual({ databases: [], roles: [] });
    expect((await call("GET", `/v1/projects/${parent}/branches`)).body.map((b: { name: string }) => b.name)).toEqual(["schema-only"]);
  });

  it("deletes the parent while a branch copied from it remains, leaving the branch whole", async () => {
    const copy = await branchOf("outlives", true);
    expect((await call("DELETE", `/v1/projects/${parent}`)).status).toBe(200);
    expect(await tracesOf(clusterUrl(clusterInfo()), parent)).toEqual({ databases: [], roles: [] });
    const rows = await adminQuery(dbUrl(copy.project_ref), "select count(*)::int as n from public.notes");
    expect(rows).toEqual([{ n: 2 }]);
  });
});

// Branches over real HTTP on real databases: a branch with data has the parent's rows, one
// without has its schema from the replayed migrations; a migration made on a branch and merged
// appears on the parent and in its GraphQL; push, reset, diff, action runs with logs; delete now
// or after a grace period (a fake clock) with restore; a deleted parent takes its branches.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { purgeDueBranches } from "../../server/src/management/branches/branchLifecycle";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, tracesOf, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let parent: string;
/** Added to the platform's clock: the grace period passes without waiting. */
let clockOffset = 0;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const dbUrl = (ref: string) => clusterUrl(clusterInfo(), ref);

/** Runs a migration on a project's database as its owner and records it as the CLI does. */
async function migrateProject(ref: string, version: string, statements: string[]): Promise<void> {
  // As the CLI would, logged in as the project's owner: the history is the owner's.
  const sql = [
    "begin",
    `set local role "${ref}_owner"`,
    "create schema if not exists supabase_migrations",
    "create table if not exists supabase_migrations.schema_migrations (version text not null primary key, statements text[], name text)",
    ...statements,
    "commit",
  ].join(";\n");
  await adminQuery(dbUrl(ref), sql);
  await adminQuery(dbUrl(ref), `set role "${ref}_owner"; insert into supabase_migrations.schema_migrations (version, name, statements) values ('${version}', 'm${version}', array[${statements.map((t) => `$s$${t}$s$`).join(", ")}]::text[])`);
}

const branchOf = async (name: string, withData: boolean) => {
  const r = await call("POST", `/v1/projects/${parent}/branches`, { branch_name: name, with_data: withData, git_branch: `feature/${name}` });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; project_ref: string; status: string };
};

beforeAll(async () => {
  platform = await startPlatform({ now: () => Date.now() + clockOffset });
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

  it("with data while the parent is in use: its idle sessions ended, its requests held, and the database copied as a template", async () => {
    const idle = new pg.Client({ connectionString: dbUrl(parent) });
    const ended = new Promise<string | undefined>((resolve) => idle.on("error", (e) => resolve((e as { code?: string }).code)));
    await idle.connect();
    const anon = (await call("GET", `/v1/projects/${parent}/api-keys`)).body[0].api_key as string;
    const endpoint = `${platform.baseUrl}/project/${parent}/graphql/v1`;
    expect((await graphqlAt(endpoint, anon, "{ __typename }")).status).toBe(200);
    const branching = branchOf("while-used", true);
    const reads = Array.from({ length: 5 }, () => graphqlAt(endpoint, anon, "{ __typename }"));
    const branch = await branching;
    expect((await Promise.all(reads)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await ended).toBe("57P01");
    await idle.end().catch(() => {});
    const oid = async (ref: string) => (await adminQuery(dbUrl(ref), "select oid::int from pg_class where relname = 'notes'"))[0].oid;
    // A template copy keeps the catalogs as they are; a restore makes the table anew.
    expect(await oid(branch.project_ref)).toBe(await oid(parent));
    expect((await adminQuery(dbUrl(branch.project_ref), "select body from public.notes order by id")).map((r) => r.body)).toEqual(["kept", "also kept"]);
    expect((await adminQuery(clusterUrl(clusterInfo()), "select datallowconn from pg_database where datname = $1", [parent]))[0].datallowconn).toBe(true);
    expect((await graphqlAt(endpoint, anon, "{ __typename }")).status).toBe(200);
    expect((await call("DELETE", `/v1/branches/${branch.project_ref}`)).status).toBe(200);
  });

  it("with data while another session keeps a transaction open on the parent: copied by dump and restore", async () => {
    const held = new pg.Client({ connectionString: dbUrl(parent) });
    held.on("error", () => {});
    await held.connect();
    await held.query("begin");
    await held.query("select 1");
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
      // The session was left as it was.
      expect((await held.query("select 2 as n")).rows).toEqual([{ n: 2 }]);
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
    // The platform's logins into the branch are made before the reset drops its database.
    expect((await call("GET", `/v1/projects/${schemaBranch.project_ref}/database/migrations`)).status).toBe(200);
    const reset = await call("POST", `/v1/branches/${schemaBranch.project_ref}/reset`, {});
    expect(reset.status).toBe(201);
    expect(await adminQuery(dbUrl(schemaBranch.project_ref), "select to_regclass('public.bad') as t")).toEqual([{ t: null }]);
    const versions = await adminQuery(dbUrl(schemaBranch.project_ref), "select version from supabase_migrations.schema_migrations order by 1");
    expect(versions.map((v) => v.version)).toEqual(["20250101000000", "20250202000000"]);
    const listed = await call("GET", `/v1/projects/${schemaBranch.project_ref}/database/migrations`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.map((m: { version: string }) => m.version)).toEqual(["20250101000000", "20250202000000"]);
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
    for (const action of ["push", "merge", "reset"]) {
      const r = await call("POST", `/v1/branches/${schemaBranch.project_ref}/${action}`, { migration_version: "20991231000000" });
      expect(r.status, action).toBe(400);
      expect(r.body.message).toMatch(/Migration version 20991231000000 is not in the migration history of/);
    }
    expect((await call("POST", `/v1/branches/${schemaBranch.project_ref}/push`, { migration_version: 7 })).status).toBe(400);
    const restore = await call("POST", `/v1/branches/${schemaBranch.project_ref}/restore`);
    expect(restore.status).toBe(400);
    expect(restore.body.message).toBe("Branch schema-only is not scheduled for deletion: there is nothing to restore");
    expect((await call("DELETE", `/v1/branches/${schemaBranch.project_ref}?force=maybe`)).status).toBe(400);
    expect((await call("GET", `/v1/projects/${schemaBranch.project_ref}/actions`)).body.length).toBe(4);
    const renamed = await call("PATCH", `/v1/branches/${schemaBranch.project_ref}`, { branch_name: "with-rows" });
    expect(renamed.status).toBe(409);
    expect(renamed.body.message).toBe("Branch with-rows already exists");
    expect((await call("PATCH", `/v1/branches/${schemaBranch.project_ref}`, { status: "NOT_A_STATUS" })).status).toBe(400);
    expect((await call("GET", `/v1/projects/${parent}/branches/schema-only`)).body).toMatchObject({ name: "schema-only", status: "MIGRATIONS_PASSED" });
    const noRun = await call("GET", `/v1/projects/${schemaBranch.project_ref}/actions/00000000-0000-0000-0000-000000000000`);
    expect(noRun.status).toBe(404);
    expect(noRun.body.message).toBe("Action run 00000000-0000-0000-0000-000000000000 not found");
    const stranger = await platform.token("stranger@example.com");
    expect((await api(platform.baseUrl, stranger, "GET", `/v1/branches/${schemaBranch.project_ref}`)).status).toBe(403);
  });

  it("deletes a branch with its database and roles", async () => {
    const r = await call("DELETE", `/v1/branches/${dataBranch.project_ref}?force=true`);
    expect(r.body).toEqual({ message: "ok" });
    expect(await tracesOf(clusterUrl(clusterInfo()), dataBranch.project_ref)).toEqual({ databases: [], roles: [] });
    expect((await call("GET", `/v1/projects/${parent}/branches`)).body.map((b: { name: string }) => b.name)).toEqual(["schema-only"]);
  });
});

/** The migration versions recorded in a project's database. */
const versionsOf = async (ref: string) =>
  (await adminQuery(dbUrl(ref), "select version from supabase_migrations.schema_migrations order by 1")).map((r) => r.version as string);
const exists = async (ref: string, table: string) => (await adminQuery(dbUrl(ref), "select to_regclass($1) is not null as t", [table]))[0].t as boolean;

describe("push", () => {
  let pusher: { id: string; project_ref: string };

  beforeAll(async () => {
    pusher = await branchOf("pusher", false);
    await migrateProject(pusher.project_ref, "20250505000000", ["create table public.own_table (id int)"]);
    await migrateProject(parent, "20250404000000", ["create table public.parent_later (id int)"]);
    await migrateProject(parent, "20250606000000", ["create table public.parent_latest (id int)"]);
  });

  it("applies the parent's migrations the branch lacks up to migration_version, keeping the branch's own", async () => {
    const pushed = await call("POST", `/v1/branches/${pusher.project_ref}/push`, { migration_version: "20250404000000" });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
    expect(pushed.body.message).toBe("ok");
    expect(await exists(pusher.project_ref, "public.parent_later")).toBe(true);
    expect(await exists(pusher.project_ref, "public.parent_latest")).toBe(false);
    expect(await exists(pusher.project_ref, "public.own_table")).toBe(true);

    const all = await call("POST", `/v1/branches/${pusher.project_ref}/push`, {});
    const run = await call("GET", `/v1/projects/${pusher.project_ref}/actions/${all.body.workflow_run_id}`);
    expect(run.body.run_steps[0]).toMatchObject({ name: "migrate", status: "EXITED" });
    const logs = await call("GET", `/v1/projects/${pusher.project_ref}/actions/${all.body.workflow_run_id}/logs`);
    expect(logs.body).toContain("applying migration 20250606000000");
    expect(logs.body).not.toContain("20250404000000");
    expect(await versionsOf(pusher.project_ref)).toEqual(["20250101000000", "20250202000000", "20250404000000", "20250505000000", "20250606000000"]);
    // The parent is not touched by a push.
    expect(await exists(parent, "public.own_table")).toBe(false);
    // The branch's calls are in its own request logs.
    const sql = encodeURIComponent("select metadata->'request'->>'path' as path, metadata->'response'->>'status_code' as status from edge_logs");
    const logged = await call("GET", `/v1/projects/${pusher.project_ref}/analytics/endpoints/logs.all?sql=${sql}`);
    expect(logged.body.result).toContainEqual({ path: `/v1/branches/${pusher.project_ref}/push`, status: "201" });
  });

  it("reports a push that fails on the branch as a dead run, changing nothing", async () => {
    await migrateProject(parent, "20250707000000", ["create table public.also_new (id int)", "create table public.own_table (id int)"]);
    const pushed = await call("POST", `/v1/branches/${pusher.project_ref}/push`, {});
    expect(pushed.status).toBe(201);
    const run = await call("GET", `/v1/projects/${pusher.project_ref}/actions/${pushed.body.workflow_run_id}`);
    expect(run.body.run_steps[0].status).toBe("DEAD");
    const logs = await call("GET", `/v1/projects/${pusher.project_ref}/actions/${pushed.body.workflow_run_id}/logs`);
    expect(logs.body).toMatch(/failed: relation "own_table" already exists/);
    expect(await exists(pusher.project_ref, "public.also_new")).toBe(false);
    expect(await versionsOf(pusher.project_ref)).not.toContain("20250707000000");
  });
});

describe("deletion with a grace period", () => {
  let graced: { id: string; project_ref: string };
  const anonKey = async (ref: string) => (await call("GET", `/v1/projects/${ref}/api-keys`)).body[0].api_key as string;
  const notes = (ref: string, key: string) => graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, key, "{ notesCollection { edges { node { body } } } }");

  beforeAll(async () => {
    graced = await branchOf("graced", true);
    await adminQuery(dbUrl(graced.project_ref), "insert into public.notes values (3, 'only on the branch')");
  });
  afterAll(() => {
    clockOffset = 0;
  });

  it("force=false schedules the deletion an hour ahead and closes the branch meanwhile", async () => {
    const key = await anonKey(graced.project_ref);
    const deleted = await call("DELETE", `/v1/branches/${graced.project_ref}?force=false`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: "ok" });
    const listed = (await call("GET", `/v1/projects/${parent}/branches/graced`)).body;
    expect(Date.parse(listed.deletion_scheduled_at) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(listed.preview_project_status).toBe("INACTIVE");
    expect((await notes(graced.project_ref, key)).status).toBe(503);

    const merge = await call("POST", `/v1/branches/${graced.project_ref}/merge`, {});
    expect(merge.status).toBe(400);
    expect(merge.body.message).toMatch(/^Branch graced is scheduled for deletion at .*: restore it first$/);
    expect((await call("POST", `/v1/projects/${graced.project_ref}/restore`)).body.message).toMatch(/restore it with POST \/v1\/branches\//);
    expect((await call("DELETE", `/v1/branches/${graced.project_ref}?force=false`)).body.message).toMatch(/already scheduled for deletion/);
    const again = await call("POST", `/v1/projects/${parent}/branches`, { branch_name: "graced" });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/scheduled for deletion/);
    const stranger = await platform.token("restorer@example.com");
    expect((await api(platform.baseUrl, stranger, "POST", `/v1/branches/${graced.project_ref}/restore`)).status).toBe(403);
    expect((await call("GET", `/v1/projects/${parent}/branches/graced`)).body.deletion_scheduled_at).toBe(listed.deletion_scheduled_at);
  });

  it("a restore within the grace period brings the branch back with its data", async () => {
    clockOffset = 59 * 60_000;
    const restored = await call("POST", `/v1/branches/${graced.project_ref}/restore`);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toEqual({ message: "Branch restoration initiated" });
    const branch = (await call("GET", `/v1/projects/${parent}/branches/graced`)).body;
    expect(branch.deletion_scheduled_at).toBeUndefined();
    expect(branch.preview_project_status).toBe("ACTIVE_HEALTHY");
    const gql = await notes(graced.project_ref, await anonKey(graced.project_ref));
    expect(gql.body.data.notesCollection.edges.map((e: { node: { body: string } }) => e.node.body)).toContain("only on the branch");
  });

  it("after the grace period the branch and its database are gone, and a restore says why", async () => {
    clockOffset = 0;
    expect((await call("DELETE", `/v1/branches/${graced.project_ref}?force=false`)).status).toBe(200);
    clockOffset = 61 * 60_000;
    const late = await call("POST", `/v1/branches/${graced.project_ref}/restore`);
    expect(late.status).toBe(404);
    expect(late.body.message).toMatch(/^Branch graced \([a-z]{20}\) was deleted for good at .*, when its grace period of 60 minutes ended: it can no longer be restored$/);
    expect(await tracesOf(clusterUrl(clusterInfo()), graced.project_ref)).toEqual({ databases: [], roles: [] });
    expect((await call("GET", `/v1/projects/${parent}/branches/graced`)).status).toBe(404);
    expect((await call("GET", `/v1/branches/${graced.id}`)).status).toBe(404);
  });

  it("the periodic pass removes a branch whose grace period ended without any request", async () => {
    clockOffset = 0;
    const swept = await branchOf("swept", false);
    expect((await call("DELETE", `/v1/branches/${swept.project_ref}?force=false`)).status).toBe(200);
    await purgeDueBranches(platform.running.services);
    expect((await tracesOf(clusterUrl(clusterInfo()), swept.project_ref)).databases).toEqual([swept.project_ref]);
    clockOffset = 61 * 60_000;
    await purgeDueBranches(platform.running.services);
    expect(await tracesOf(clusterUrl(clusterInfo()), swept.project_ref)).toEqual({ databases: [], roles: [] });
    const [row] = await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.branches where branch_ref = $1", [swept.project_ref]);
    expect(row.n).toBe(0);
  });
});

describe("a branch's migration history", () => {
  const owners = (ref: string) =>
    adminQuery(
      dbUrl(ref),
      `select (select nspowner::regrole::text from pg_namespace where nspname = 'supabase_migrations') as schema,
              (select tableowner from pg_tables where schemaname = 'supabase_migrations' and tablename = 'schema_migrations') as "table"`,
    );
  const apply = (ref: string, name: string, query: string) => call("POST", `/v1/projects/${ref}/database/migrations`, { name, query });

  it("belongs to the branch's owner after the replay, so migrations apply through the API", async () => {
    const branch = await branchOf("api-migrations", false);
    const ref = branch.project_ref;
    expect(await owners(ref)).toEqual([{ schema: `${ref}_owner`, table: `${ref}_owner` }]);
    const applied = await apply(ref, "add_labels", "create table public.labels (id int primary key)");
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const listed = (await call("GET", `/v1/projects/${ref}/database/migrations`)).body as { name: string }[];
    expect(listed.at(-1)?.name).toBe("add_labels");
    expect(await adminQuery(dbUrl(ref), "select tableowner from pg_tables where tablename = 'labels'")).toEqual([{ tableowner: `${ref}_owner` }]);

    // A branch made before this fix: its history owned by the superuser, the owner only granted.
    await adminQuery(dbUrl(ref), `alter schema supabase_migrations owner to postgres;
      alter table supabase_migrations.schema_migrations owner to postgres;
      grant usage on schema supabase_migrations to "${ref}_owner"; grant all on supabase_migrations.schema_migrations to "${ref}_owner"`);
    const refused = await apply(ref, "refused", "create table public.refused (id int)");
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("42501");
    // A server process starting now hands it to the owner on its first use of the project
    // (through the door: only a superuser-owned history table changes owner).
    const restarted = await startPlatform({ platformDatabase: platform.platformDatabase });
    try {
      const after = await api(restarted.baseUrl, token, "POST", `/v1/projects/${ref}/database/migrations`, { name: "after_fix", query: "create table public.after_fix (id int)" });
      expect(after.status, JSON.stringify(after.body)).toBe(200);
      expect(await owners(ref)).toEqual([{ schema: `${ref}_owner`, table: `${ref}_owner` }]);
    } finally {
      await restarted.close({ keepDatabase: true });
    }
    expect((await call("DELETE", `/v1/branches/${ref}`)).status).toBe(200);
  });
});

describe("deleting the parent", () => {
  it("disabling branching removes every branch with its database, leaving the parent", async () => {
    const before = (await call("GET", `/v1/projects/${parent}/branches`)).body as { project_ref: string }[];
    expect(before.length).toBeGreaterThan(0);
    const stranger = await platform.token("disabler@example.com");
    expect((await api(platform.baseUrl, stranger, "DELETE", `/v1/projects/${parent}/branches`)).status).toBe(403);
    expect((await call("GET", `/v1/projects/${parent}/branches`)).body).toHaveLength(before.length);
    expect((await call("DELETE", `/v1/projects/${parent}/branches`)).status).toBe(200);
    expect((await call("GET", `/v1/projects/${parent}/branches`)).body).toEqual([]);
    for (const b of before) expect(await tracesOf(clusterUrl(clusterInfo()), b.project_ref)).toEqual({ databases: [], roles: [] });
    expect(await adminQuery(dbUrl(parent), "select count(*)::int as n from public.notes")).toEqual([{ n: 2 }]);
  });

  it("removes its branches, and theirs, with their databases, roles, keys and records", async () => {
    const child = await branchOf("goes-with-parent", true);
    const grandchild = (await call("POST", `/v1/projects/${child.project_ref}/branches`, { branch_name: "nested", with_data: true })).body;
    expect(grandchild.parent_project_ref).toBe(child.project_ref);
    const childKey = (await call("GET", `/v1/projects/${child.project_ref}/api-keys`)).body[0].api_key as string;
    expect((await graphqlAt(`${platform.baseUrl}/project/${child.project_ref}/graphql/v1`, childKey, "{ __typename }")).status).toBe(200);
    const refs = [parent, child.project_ref, grandchild.project_ref];

    expect((await call("DELETE", `/v1/projects/${parent}`)).status).toBe(200);
    for (const ref of refs) expect(await tracesOf(clusterUrl(clusterInfo()), ref)).toEqual({ databases: [], roles: [] });
    const [left] = await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.projects where ref = any($1)", [refs]);
    expect(left.n).toBe(0);
    expect((await call("GET", `/v1/projects/${child.project_ref}`)).status).toBe(403);
    expect((await graphqlAt(`${platform.baseUrl}/project/${child.project_ref}/graphql/v1`, childKey, "{ __typename }")).status).not.toBe(200);
    expect((await call("DELETE", `/v1/projects/${parent}`)).status).toBe(403);
  });
});

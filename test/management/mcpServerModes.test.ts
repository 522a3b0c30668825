// The official Supabase MCP server (@supabase/mcp-server-supabase 0.13.0) in its two narrower
// modes against a throwaway platform: `--read-only`, where the write tools are gone and
// execute_sql runs on the project's read-only login, so a write is refused by the server and
// changes nothing; and `--project-ref`, where the tools take no project and reach that project
// only. Each answer is checked against the database and the API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { startMcpServer, untrustedJson, type McpSession } from "./mcpServerRunner";
import { adminQuery, api, clusterUrl, createProject, graphqlAt, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;
let other: string;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const db = (database: string, sql: string, params: unknown[] = []) => adminQuery(clusterUrl(clusterInfo(), database), sql, params);

/** The tools that write, which read-only mode leaves out (execute_sql stays, read-only). */
const writeTools = [
  "apply_migration", "create_branch", "create_project", "delete_branch", "deploy_edge_function", "merge_branch", "pause_project",
  "rebase_branch", "reset_branch", "restore_project", "update_storage_config",
];
const accountTools = ["confirm_cost", "create_project", "get_cost", "get_organization", "get_project", "list_organizations", "list_projects", "pause_project", "restore_project"];
const allTools = [
  ...accountTools, "apply_migration", "create_branch", "delete_branch", "deploy_edge_function", "execute_sql", "generate_typescript_types",
  "get_advisors", "get_edge_function", "get_project_url", "get_publishable_keys", "get_storage_config", "list_branches",
  "list_edge_functions", "list_extensions", "list_migrations", "list_storage_buckets", "list_tables", "merge_branch", "query_logs",
  "rebase_branch", "reset_branch", "update_storage_config",
];

beforeAll(async () => {
  platform = await startPlatform({ rateLimit: 10_000 });
  token = await platform.token("mcp-modes@example.com");
  ref = (await createProject(platform.baseUrl, token, "mcp modes")).ref;
  other = (await createProject(platform.baseUrl, token, "mcp other")).ref;
  const migrated = await call("POST", `/v1/projects/${ref}/database/migrations`, {
    name: "notes",
    query: "create table public.notes (id bigint primary key, body text not null); insert into public.notes values (1, 'first'), (2, 'second')",
  });
  expect(migrated.status, JSON.stringify(migrated.body)).toBe(200);
  const fn = await call("POST", `/v1/projects/${ref}/functions`, { slug: "hello", name: "hello", body: "Deno.serve(() => new Response('hi'))\n" });
  expect(fn.status).toBe(201);
});
afterAll(async () => {
  for (const r of [ref, other]) await call("DELETE", `/v1/projects/${r}`);
  await platform.close();
});

const notes = () => db(ref, "select id::int, body from public.notes order by id");

describe("read-only mode", () => {
  let mcp: McpSession;
  beforeAll(async () => {
    mcp = await startMcpServer(platform.baseUrl, token, { readOnly: true });
  });
  afterAll(() => mcp.close());

  it("lists no write tool", async () => {
    expect(await mcp.tools()).toEqual(allTools.filter((t) => !writeTools.includes(t)).sort());
  });

  it("reads through execute_sql and the listing tools", async () => {
    const read = untrustedJson((await mcp.ok("execute_sql", { project_id: ref, query: "select id, body, current_user as who from public.notes order by id" })).result);
    expect(read).toEqual([
      { id: 1, body: "first", who: `${ref}_readonly` },
      { id: 2, body: "second", who: `${ref}_readonly` },
    ]);
    expect((await mcp.ok("list_tables", { project_id: ref })).tables.map((t: { name: string }) => t.name)).toEqual(["public.notes"]);
    expect((await mcp.ok("list_migrations", { project_id: ref })).migrations).toEqual((await call("GET", `/v1/projects/${ref}/database/migrations`)).body);
    expect((await mcp.ok("list_projects")).projects.map((p: { id: string }) => p.id).sort()).toEqual([ref, other].sort());
    const fn = await mcp.ok("get_edge_function", { project_id: ref, function_slug: "hello" });
    expect(fn.files).toEqual([{ name: "index.ts", content: "Deno.serve(() => new Response('hi'))\n" }]);
    expect((await mcp.ok("get_advisors", { project_id: ref, type: "security" })).result.lints.map((l: { name: string }) => l.name)).toContain("rls_disabled_in_public");
  });

  it("has every write refused by the server's read-only login, changing nothing", async () => {
    const writes = [
      "insert into public.notes values (3, 'third')",
      "update public.notes set body = 'changed'",
      "commit; set default_transaction_read_only = off; delete from public.notes",
      "create table public.sneaky (id int)",
    ];
    for (const query of writes) {
      const refused = await mcp.error("execute_sql", { project_id: ref, query });
      expect(refused, query).toMatch(/read-only transaction|permission denied/);
    }
    expect(await mcp.error("apply_migration", { project_id: ref, name: "nope", query: "drop table public.notes" })).toMatch(/read-only mode/);
    expect(await notes()).toEqual([{ id: 1, body: "first" }, { id: 2, body: "second" }]);
    expect(await db(ref, "select to_regclass('public.sneaky') as t")).toEqual([{ t: null }]);
    expect((await call("GET", `/v1/projects/${ref}/database/migrations`)).body.map((m: { name: string }) => m.name)).toEqual(["notes"]);
  });
});

describe("project-scoped mode", () => {
  let mcp: McpSession;
  beforeAll(async () => {
    mcp = await startMcpServer(platform.baseUrl, token, { projectRef: ref });
  });
  afterAll(() => mcp.close());

  it("lists the project's tools without a project parameter, and no account tools", async () => {
    const listed = (await mcp.client.listTools()).tools;
    expect(listed.map((t) => t.name).sort()).toEqual(allTools.filter((t) => !accountTools.includes(t)).sort());
    for (const tool of listed) expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).not.toContain("project_id");
  });

  it("reaches only that project, and refuses a project argument", async () => {
    const where = untrustedJson((await mcp.ok("execute_sql", { query: "select current_database() as db, current_user as who" })).result);
    expect(where).toEqual([{ db: ref, who: `${ref}_owner` }]);
    const elsewhere = await mcp.error("execute_sql", { project_id: other, query: "create table public.planted (id int)" });
    expect(elsewhere).toMatch(/project_id/);
    expect(await db(other, "select to_regclass('public.planted') as t")).toEqual([{ t: null }]);
    expect((await mcp.ok("list_tables", {})).tables.map((t: { name: string }) => t.name)).toEqual(["public.notes"]);
  });

  it("applies migrations and deploys functions on that project", async () => {
    expect(await mcp.ok("apply_migration", { name: "tags", query: "create table public.tags (id int primary key)" })).toEqual({ success: true });
    expect((await mcp.ok("list_migrations", {})).migrations.map((m: { name: string }) => m.name)).toEqual(["notes", "tags"]);
    expect(await db(ref, "select tableowner from pg_tables where tablename = 'tags'")).toEqual([{ tableowner: `${ref}_owner` }]);
    expect(await db(other, "select to_regclass('public.tags') as t")).toEqual([{ t: null }]);

    const deployed = await mcp.ok("deploy_edge_function", { name: "scoped", entrypoint_path: "main.ts", files: [{ name: "main.ts", content: "export {};\n" }] });
    expect(deployed).toMatchObject({ slug: "scoped", version: 1 });
    expect((await mcp.ok("list_edge_functions", {})).functions.map((f: { slug: string }) => f.slug)).toEqual(["hello", "scoped"]);
    expect((await call("GET", `/v1/projects/${other}/functions`)).body).toEqual([]);
    expect((await mcp.ok("get_edge_function", { function_slug: "scoped" })).files).toEqual([{ name: "main.ts", content: "export {};\n" }]);
  });

  it("answers the project's keys, URL, types, advisors, logs, branches and storage settings", async () => {
    const keys = (await mcp.ok("get_publishable_keys", {})).keys;
    expect(keys.map((k: { api_key: string }) => k.api_key)).toEqual([(await call("GET", `/v1/projects/${ref}/api-keys`)).body.find((k: { name: string }) => k.name === "anon").api_key]);
    expect((await graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, keys[0].api_key, "{ notesCollection { edges { node { body } } } }")).body).toEqual({
      data: { notesCollection: { edges: [{ node: { body: "first" } }, { node: { body: "second" } }] } },
    });
    expect(await mcp.ok("get_project_url", {})).toEqual({ url: `https://${ref}.supabase.red` });
    expect((await mcp.ok("generate_typescript_types", {})).types).toContain("tags: {");
    expect((await mcp.ok("get_advisors", { type: "performance" })).result).toHaveProperty("lints");
    const api = untrustedJson((await mcp.ok("get_logs", { service: "api" })).result).result as { identifier: string; path: string }[];
    expect(api.some((row) => row.path === `/project/${ref}/graphql/v1`)).toBe(true);
    expect(api.every((row) => row.identifier === ref)).toBe(true);
    const queried = untrustedJson((await mcp.ok("query_logs", { sql: "select distinct log_attributes['identifier'] as identifier from logs" })).result).result;
    expect(queried).toEqual([{ identifier: ref }]);
    expect((await mcp.ok("list_branches", {})).branches).toEqual([]);
    expect(await mcp.ok("get_storage_config", {})).toEqual((await call("GET", `/v1/projects/${ref}/config/storage`)).body);
  });
});

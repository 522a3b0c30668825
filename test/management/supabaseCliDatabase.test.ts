// The real `supabase` CLI's database commands against this server through the Management API:
// `db query --remote` (rows, read-only, errors), `gen types --remote` (the types the API
// generates), `db advisors --remote` (the lints the API computes); and `migration list` and
// `db push` over a database URL as the project's owner role, sharing the API's history.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { api, createProject, startPlatform, type TestPlatform } from "./support";
import { supabaseCli, type SupabaseCli } from "./supabaseCliRunner";

let platform: TestPlatform;
let cli: SupabaseCli;
let token: string;
let ref: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("cli-db@example.com");
  ref = (await createProject(platform.baseUrl, token, "cli db")).ref;
  cli = supabaseCli(platform.baseUrl, token);
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
  cli.close();
});

describe("supabase CLI database commands", () => {
  it("db query runs SQL and prints the rows; --read-only refuses writes; errors carry PostgreSQL's message", async () => {
    const made = await cli.run("db", "query", `--remote=${ref}`, "--yes", "--output-format", "json",
      "create table public.gadget (id int primary key, name text); insert into public.gadget values (1, 'one'); select id, name from public.gadget");
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual([{ id: 1, name: "one" }]);

    const write = await cli.run("db", "query", `--remote=${ref}`, "--read-only",
      "with added as (insert into public.gadget values (2, 'two') returning id) select * from added");
    expect(write.code, write.stderr + write.stdout).not.toBe(0);
    expect(write.stderr + write.stdout, write.stderr + write.stdout).toMatch(/read-only transaction|permission denied/);
    const bad = await cli.run("db", "query", `--remote=${ref}`, "--yes", "select * from public.nothing_here");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr + bad.stdout).toMatch(/relation \\?"public\.nothing_here\\?" does not exist/);
    const count = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, { query: "select count(*)::int as n from public.gadget" });
    expect(count.body).toEqual([{ n: 1 }]);
  });

  it("gen types prints the types the API generates", async () => {
    const r = await cli.run("gen", "types", "typescript", `--remote=${ref}`);
    expect(r.code, r.stderr).toBe(0);
    const fromApi = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/types/typescript?included_schemas=public`)).body.types as string;
    expect(r.stdout).toContain("gadget: {");
    expect(r.stdout.trim()).toBe(fromApi.trim());
  });

  it("db advisors prints the lints the API computes", async () => {
    const r = await cli.run("db", "advisors", `--remote=${ref}`, "--output-format", "json");
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as { results: { name: string; cache_key?: string }[] };
    const fromApi = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/advisors/security`)).body.lints as { name: string }[];
    expect(fromApi.map((l) => l.name)).toContain("rls_disabled_in_public");
    expect(printed.results.map((l) => l.name)).toEqual(expect.arrayContaining(fromApi.map((l) => l.name)));
  });

  it("migration list and db push over the project's database URL share the API's history", async () => {
    const applied = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/database/migrations`, {
      query: "create table public.from_api (id int primary key)",
      name: "from_api",
    });
    expect(applied.status).toBe(200);
    const [first] = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/database/migrations`)).body as { version: string }[];
    const info = clusterInfo();
    const url = `postgresql://${ref}_owner:a-password-1@localhost/${ref}?host=${encodeURIComponent(info.host)}&port=${info.port}`;
    const folder = join(cli.home, "supabase", "migrations");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(cli.home, "supabase", "config.toml"), 'project_id = "cli-db"\n');
    writeFileSync(join(folder, `${first!.version}_from_api.sql`), "create table public.from_api (id int primary key);\n");
    writeFileSync(join(folder, "29990101000000_from_cli.sql"), "create table public.from_cli (id int primary key);\n");

    const listed = await cli.run("migration", "list", `--remote=${url}`);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(first!.version);
    const pushed = await cli.run("db", "push", `--remote=${url}`, "--yes");
    expect(pushed.code, pushed.stderr + pushed.stdout).toBe(0);
    const history = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/database/migrations`)).body;
    expect(history).toEqual([
      { version: first!.version, name: "from_api" },
      { version: "29990101000000", name: "from_cli" },
    ]);
    const made = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, { query: "select to_regclass('public.from_cli')::text as t" });
    expect(made.body).toEqual([{ t: "from_cli" }]);
  });
});

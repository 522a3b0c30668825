// The real `supabase` CLI's database commands against this server through the Management API:
// `db query --remote` (rows, read-only, errors), `gen types --remote` (the types compile as the
// API's do), `db advisors --remote` (the lints the API computes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
});

// The real `supabase` CLI on one project's services: secrets list/set/unset, functions
// deploy (bundled server-side, no Docker)/list/download/delete, branches list/create/get/delete,
// and logs (the CLI reads analytics/endpoints/logs).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startPlatform, type TestPlatform } from "./support";
import { supabaseCli, type SupabaseCli } from "./supabaseCliRunner";

let platform: TestPlatform;
let cli: SupabaseCli;
let token: string;
let ref: string;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);

beforeAll(async () => {
  // The router gives the projects their PRIMARY pooler entry, which `branches get` reads.
  platform = await startPlatform({ databaseRouterPort: 0 });
  token = await platform.token("cli-project@example.com");
  const slug = (await call("POST", "/v1/organizations", { name: "CLI Project Org" })).body.slug;
  ref = (await call("POST", "/v1/projects", { name: "cli-services", organization_slug: slug, db_pass: "pw-cli-2", region: "us-east-1" })).body.ref;
  cli = supabaseCli(platform.baseUrl, token);
});
afterAll(async () => {
  const projects = await call("GET", "/v1/projects");
  for (const p of projects.body ?? []) await call("DELETE", `/v1/projects/${p.ref}`);
  await platform.close();
  cli.close();
});

describe("secrets", () => {
  it("sets, lists by digest and unsets", async () => {
    const set = await cli.run("secrets", "set", "CLI_TOKEN=abc-123-secret", "OTHER=two", `--remote=${ref}`, "--yes");
    expect(set.code, set.stderr + set.stdout).toBe(0);
    const listed = await cli.run("secrets", "list", `--remote=${ref}`, "--output-format", "json");
    expect(listed.code, listed.stderr + listed.stdout).toBe(0);
    expect(listed.stdout).toContain("CLI_TOKEN");
    expect(listed.stdout).not.toContain("abc-123-secret");
    const unset = await cli.run("secrets", "unset", "OTHER", `--remote=${ref}`, "--yes");
    expect(unset.code, unset.stderr + unset.stdout).toBe(0);
    const names = (await call("GET", `/v1/projects/${ref}/secrets`)).body.map((s: { name: string }) => s.name);
    expect(names).toEqual(["CLI_TOKEN"]);
  });

  it("reports a refused SUPABASE_ name", async () => {
    const r = await cli.run("secrets", "set", "SUPABASE_X=1", `--remote=${ref}`, "--yes");
    expect(r.code).not.toBe(0);
  });
});

describe("functions", () => {
  const source = "Deno.serve(() => new Response('from the cli'))\n";

  it("deploys without Docker, lists, downloads the same source and deletes", async () => {
    const dir = join(cli.home, "supabase", "functions", "hello-cli");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "index.ts"), source);
    const deployed = await cli.run("functions", "deploy", "hello-cli", "--use-api", `--remote=${ref}`, "--yes");
    expect(deployed.code, deployed.stderr + deployed.stdout).toBe(0);
    const fn = (await call("GET", `/v1/projects/${ref}/functions/hello-cli`)).body;
    expect(fn).toMatchObject({ slug: "hello-cli", status: "ACTIVE", version: 1 });

    const listed = await cli.run("functions", "list", `--remote=${ref}`, "--output-format", "json");
    expect(listed.code, listed.stderr + listed.stdout).toBe(0);
    expect(listed.stdout).toContain("hello-cli");

    writeFileSync(join(dir, "index.ts"), "overwritten");
    const downloaded = await cli.run("functions", "download", "hello-cli", "--use-api", `--remote=${ref}`, "--yes");
    expect(downloaded.code, downloaded.stderr + downloaded.stdout).toBe(0);
    expect(readFileSync(join(dir, "index.ts"), "utf8")).toBe(source);

    const deleted = await cli.run("functions", "delete", "hello-cli", `--remote=${ref}`, "--yes");
    expect(deleted.code, deleted.stderr + deleted.stdout).toBe(0);
    expect((await call("GET", `/v1/projects/${ref}/functions`)).body).toEqual([]);
  });
});

describe("branches", () => {
  it("creates, lists, gets and deletes a branch", async () => {
    const created = await cli.run("branches", "create", "cli-branch", "--with-data", `--remote=${ref}`, "--yes", "--output-format", "json");
    expect(created.code, created.stderr + created.stdout).toBe(0);
    const branch = (await call("GET", `/v1/projects/${ref}/branches/cli-branch`)).body;
    expect(branch).toMatchObject({ name: "cli-branch", with_data: true, parent_project_ref: ref });

    const listed = await cli.run("branches", "list", `--remote=${ref}`, "--output-format", "json");
    expect(listed.code, listed.stderr + listed.stdout).toBe(0);
    expect(listed.stdout).toContain("cli-branch");

    const got = await cli.run("branches", "get", "cli-branch", `--remote=${ref}`, "--output-format", "json");
    expect(got.code, got.stderr + got.stdout).toBe(0);
    expect(got.stdout).toContain(branch.project_ref);

    const deleted = await cli.run("branches", "delete", "cli-branch", `--remote=${ref}`, "--yes");
    expect(deleted.code, deleted.stderr + deleted.stdout).toBe(0);
    expect((await call("GET", `/v1/projects/${ref}/branches`)).body).toEqual([]);
  });
});

describe("logs", () => {
  it("reads the project's edge logs through the CLI", async () => {
    expect((await call("GET", `/v1/projects/${ref}`)).status).toBe(200);
    const r = await cli.run("logs", `--remote=${ref}`, "--sql", "select event_message from edge_logs", "--output-format", "json");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain(`GET | 200 | `);
    expect(r.stdout).toContain(`/v1/projects/${ref}`);
  });
});

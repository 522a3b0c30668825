// The real `supabase` CLI (npm `supabase`, its Linux binary from @supabase/cli-linux-x64)
// pointed at this server through a profile file: orgs list, projects list, projects create and
// projects api-keys, domains get and vanity-subdomains get. No network: telemetry and the update check are off, HOME is a temp folder.
import { afterAll, beforeAll, expect, it } from "vitest";
import { api, graphqlAt, startPlatform, type TestPlatform } from "./support";
import { supabaseCli, type SupabaseCli } from "./supabaseCliRunner";

let platform: TestPlatform;
let cli: SupabaseCli;
let token: string;
let slug: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("cli@example.com");
  slug = (await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "CLI Org" })).body.slug;
  cli = supabaseCli(platform.baseUrl, token);
});
afterAll(async () => {
  const projects = await api(platform.baseUrl, token, "GET", "/v1/projects");
  for (const p of projects.body ?? []) await api(platform.baseUrl, token, "DELETE", `/v1/projects/${p.ref}`);
  await platform.close();
  cli.close();
});

const supabase = (...args: string[]) => cli.run(...args);

it("lists organizations", async () => {
  const r = await supabase("orgs", "list", "--output-format", "json");
  expect(r.code, r.stderr + r.stdout).toBe(0);
  expect(r.stdout).toContain(slug);
  expect(r.stdout).toContain("CLI Org");
});

it("creates a project, lists it and prints its API keys, which work", async () => {
  const created = await supabase("projects", "create", "cli-made", "--org-id", slug, "--db-password", "cli-password-1", "--region", "eu-central-1", "--yes", "--output-format", "json");
  expect(created.code, created.stderr + created.stdout).toBe(0);
  const projects = (await api(platform.baseUrl, token, "GET", "/v1/projects")).body;
  expect(projects).toHaveLength(1);
  expect(projects[0]).toMatchObject({ name: "cli-made", region: "eu-central-1", organization_slug: slug, status: "ACTIVE_HEALTHY" });
  const ref = projects[0].ref as string;
  expect(created.stdout).toContain(ref);

  const listed = await supabase("projects", "list", "--output-format", "json");
  expect(listed.code, listed.stderr + listed.stdout).toBe(0);
  expect(listed.stdout).toContain(ref);
  expect(listed.stdout).toContain("cli-made");

  const keys = await supabase("projects", "api-keys", `--remote=${ref}`, "--output-format", "json");
  expect(keys.code, keys.stderr + keys.stdout).toBe(0);
  const anon = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys`)).body[0].api_key as string;
  expect(keys.stdout).toContain(anon);
  const r = await graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, anon, "{ __typename }");
  expect(r.body).toEqual({ data: { __typename: "Query" } });
});

it("reads the project's custom hostname and vanity subdomain", async () => {
  const ref = (await api(platform.baseUrl, token, "GET", "/v1/projects")).body[0].ref as string;
  await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/vanity-subdomain/activate`, { vanity_subdomain: "cli-vanity" });
  const vanity = await supabase("vanity-subdomains", "get", "--project-ref", ref, "--experimental");
  expect(vanity.code, vanity.stderr + vanity.stdout).toBe(0);
  expect(vanity.stdout + vanity.stderr).toContain("cli-vanity");

  await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/custom-hostname/initialize`, { custom_hostname: "api.cli.example.com" });
  const domains = await supabase("domains", "get", "--project-ref", ref, "--experimental");
  expect(domains.code, domains.stderr + domains.stdout).toBe(0);
  expect(domains.stdout + domains.stderr).toContain("api.cli.example.com");
});

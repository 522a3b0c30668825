// Billing add-ons, disk, claim tokens and the data API's description over HTTP: selections and
// attributes validated and stored (nothing billed or resized), the disk's used space measured
// from the project database, bad input refused with the reason and nothing stored; the v2
// configuration view that the real CLI's `config push` reads, and `backups list`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminQuery, api, startPlatform, type TestPlatform } from "./support";
import { supabaseCli } from "./supabaseCliRunner";

let platform: TestPlatform;
let token: string;
let ref: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("resources@example.com");
  const org = await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "Resources" });
  ref = (await api(platform.baseUrl, token, "POST", "/v1/projects", { name: "res", organization_slug: org.body.slug, region: "us-east-1", db_pass: "res-password" })).body.ref;
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, `/v1/projects/${ref}${path}`, body);
const expectRefused = async (method: string, path: string, body: unknown, reason: string) => {
  const answer = await call(method, path, body);
  expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
  expect(answer.body.message).toContain(reason);
};

describe("billing add-ons", () => {
  it("lists the catalogue, stores selections and removes them, billing nothing", async () => {
    const first = (await call("GET", "/billing/addons")).body;
    expect(first.selected_addons).toEqual([expect.objectContaining({ type: "compute_instance", variant: expect.objectContaining({ id: "ci_micro" }) })]);
    expect(first.available_addons.map((a: { type: string }) => a.type)).toEqual(["compute_instance", "custom_domain", "pitr", "ipv4"]);
    expect(first.available_addons[2].variants[0].price).toMatchObject({ amount: 0, description: expect.stringContaining("Not billed") });

    expect((await call("PATCH", "/billing/addons", { addon_type: "pitr", addon_variant: "pitr_14" })).status).toBe(200);
    expect((await call("PATCH", "/billing/addons", { addon_type: "compute_instance", addon_variant: "ci_large" })).status).toBe(200);
    await expectRefused("PATCH", "/billing/addons", { addon_type: "ipv4", addon_variant: "pitr_7" }, "is a pitr add-on, not ipv4");
    await expectRefused("PATCH", "/billing/addons", { addon_type: "log_drain", addon_variant: "ipv4_default" }, "cannot be selected");
    expect((await call("PATCH", "/billing/addons", { addon_type: "pitr", addon_variant: "pitr_99" })).status).toBe(400);
    await expectRefused("DELETE", "/billing/addons/ipv4_default", undefined, "not selected");
    const selected = (await call("GET", "/billing/addons")).body.selected_addons.map((a: { variant: { id: string } }) => a.variant.id);
    expect(selected.sort()).toEqual(["ci_large", "pitr_14"]);

    expect((await call("DELETE", "/billing/addons/pitr_14")).status).toBe(200);
    expect((await call("DELETE", "/billing/addons/ci_large")).status).toBe(200);
    expect((await call("GET", "/billing/addons")).body.selected_addons.map((a: { variant: { id: string } }) => a.variant.id)).toEqual(["ci_micro"]);
  });
});

describe("disk", () => {
  it("measures the database, records grown attributes and refuses shrinking or out-of-range ones", async () => {
    expect((await call("GET", "/config/disk")).body).toEqual({ attributes: { type: "gp3", size_gb: 8, iops: 3000, throughput_mibps: 125 } });
    const util = (await call("GET", "/config/disk/util")).body.metrics;
    const measured = (await call("POST", "/database/query", { query: "select pg_database_size(current_database())::text as bytes" })).body;
    expect(util.fs_used_bytes).toBeGreaterThan(1_000_000);
    expect(Math.abs(util.fs_used_bytes - Number(measured[0].bytes))).toBeLessThan(1_000_000);
    expect(util.fs_size_bytes).toBe(8 * 1024 ** 3);
    expect(util.fs_avail_bytes).toBe(util.fs_size_bytes - util.fs_used_bytes);

    expect((await call("POST", "/config/disk", { attributes: { type: "gp3", size_gb: 20, iops: 4000, throughput_mibps: 200 } })).status).toBe(201);
    await expectRefused("POST", "/config/disk", { attributes: { type: "gp3", size_gb: 10, iops: 4000 } }, "only grows");
    await expectRefused("POST", "/config/disk", { attributes: { type: "gp3", size_gb: 30, iops: 20000 } }, "3000 to 16000 iops");
    await expectRefused("POST", "/config/disk", { attributes: { type: "io2", size_gb: 30, iops: 50000 } }, "1000 iops per GB");
    expect((await call("POST", "/config/disk", { attributes: { type: "gp3", size_gb: 0, iops: 3000 } })).status).toBe(400);
    expect((await call("POST", "/config/disk", { attributes: { type: "ssd", size_gb: 30, iops: 3000 } })).status).toBe(400);
    const disk = (await call("GET", "/config/disk")).body;
    expect(disk.attributes).toEqual({ type: "gp3", size_gb: 20, iops: 4000, throughput_mibps: 200 });
    expect(disk.last_modified_at).toMatch(/^\d{4}-/);
    expect((await call("GET", "/config/disk/util")).body.metrics.fs_size_bytes).toBe(20 * 1024 ** 3);
    expect((await call("GET", "/config/disk/autoscale")).body).toEqual({ growth_percent: null, min_increment_gb: null, max_size_gb: null });
  });
});

describe("claim token", () => {
  it("is created once, read without its secret, refused twice, revoked, and gone when expired", async () => {
    expect((await call("GET", "/claim-token")).status).toBe(404);
    expect((await call("DELETE", "/claim-token")).status).toBe(404);
    const made = await call("POST", "/claim-token");
    expect(made.status).toBe(200);
    expect(made.body.token).toMatch(/^cl_[0-9a-f]{48}$/);
    expect(made.body.expires_at > made.body.created_at).toBe(true);
    const read = (await call("GET", "/claim-token")).body;
    expect(read).toEqual({ token_alias: made.body.token_alias, created_at: made.body.created_at, expires_at: made.body.expires_at, created_by: made.body.created_by });
    expect(JSON.stringify(read)).not.toContain(made.body.token);
    const again = await call("POST", "/claim-token");
    expect(again.status).toBe(409);
    expect(again.body.message).toContain("revoke it");
    expect((await call("DELETE", "/claim-token")).status).toBe(204);
    expect((await call("GET", "/claim-token")).status).toBe(404);

    // An expired token counts as none: a new one replaces it.
    const first = (await call("POST", "/claim-token")).body;
    await adminQuery(platform.platformUrl, "update platform.claim_tokens set expires_at = now() - interval '1 second'");
    expect((await call("GET", "/claim-token")).status).toBe(404);
    const second = await call("POST", "/claim-token");
    expect(second.status).toBe(200);
    expect(second.body.token).not.toBe(first.token);
    expect((await call("DELETE", "/claim-token")).status).toBe(204);
  });
});

describe("claiming a project", () => {
  it("moves the project to the claiming organization once, with a preview first; refuses bad tokens and nothing moves", async () => {
    const source = (await api(platform.baseUrl, token, "GET", "/v1/organizations")).body[0].slug;
    const moving = (await api(platform.baseUrl, token, "POST", "/v1/projects", { name: "moving", organization_slug: source, region: "us-east-1", db_pass: "moving-password" })).body.ref;
    const other = await platform.token("claimant@example.com");
    const target = (await api(platform.baseUrl, other, "POST", "/v1/organizations", { name: "Claimant" })).body.slug;
    const claimPath = (slug: string, t: string) => `/v1/organizations/${slug}/project-claim/${t}`;
    const made = (await api(platform.baseUrl, token, "POST", `/v1/projects/${moving}/claim-token`)).body;

    // Bad tokens and organizations the caller is not in: refused, nothing moves.
    const unknown = await api(platform.baseUrl, other, "GET", claimPath(target, "cl_" + "0".repeat(48)));
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain("No live claim token");
    expect((await api(platform.baseUrl, other, "POST", claimPath(source, made.token))).status).toBe(403);
    const same = await api(platform.baseUrl, token, "POST", claimPath(source, made.token));
    expect(same.status).toBe(400);
    expect(same.body.message).toContain("already belongs");
    expect((await api(platform.baseUrl, token, "GET", claimPath(source, made.token))).body.preview).toMatchObject({ valid: false, errors: [{ key: "already_in_organization" }] });
    expect((await api(platform.baseUrl, other, "GET", `/v1/projects/${moving}`)).status).toBe(403);

    const preview = await api(platform.baseUrl, other, "GET", claimPath(target, made.token));
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      project: { ref: moving, name: "moving" },
      preview: { valid: true, errors: [], source_subscription_plan: "free", target_subscription_plan: "free" },
      expires_at: made.expires_at,
      created_by: made.created_by,
    });

    expect((await api(platform.baseUrl, other, "POST", claimPath(target, made.token))).status).toBe(204);
    expect((await api(platform.baseUrl, other, "GET", `/v1/projects/${moving}`)).body.organization_slug).toBe(target);
    expect((await api(platform.baseUrl, token, "GET", `/v1/projects/${moving}`)).status).toBe(403);
    // The token is spent.
    expect((await api(platform.baseUrl, other, "POST", claimPath(target, made.token))).status).toBe(404);
    expect((await api(platform.baseUrl, other, "GET", `/v1/projects/${moving}/claim-token`)).status).toBe(404);
    expect((await api(platform.baseUrl, other, "DELETE", `/v1/projects/${moving}`)).status).toBe(200);
  });
});

describe("database openapi", () => {
  it("describes the schema's tables from the catalog and the GraphQL endpoint, saying there is no PostgREST", async () => {
    const made = await call("POST", "/database/query", {
      query: "create schema shop; create table shop.item (id bigint generated always as identity primary key, title text not null, price numeric, tags text[], meta jsonb); comment on table shop.item is 'things for sale'",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const doc = (await call("GET", "/database/openapi?schema=shop")).body;
    expect(doc.swagger).toBe("2.0");
    expect(doc.info.description).toContain("No PostgREST");
    expect(Object.keys(doc.paths)).toEqual(["/graphql/v1"]);
    expect(doc.definitions).toEqual({
      item: {
        type: "object",
        description: "things for sale",
        required: ["title"],
        properties: {
          id: { type: "number", format: "bigint" },
          title: { type: "string", format: "text" },
          price: { type: "number", format: "numeric" },
          tags: { type: "array", format: "text[]" },
          meta: { format: "jsonb" },
        },
      },
    });
    expect((await call("GET", "/database/openapi")).body.definitions).toEqual({});
    const missing = await call("GET", "/database/openapi?schema=nope");
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('no schema "nope"');
  });
});

describe("the v2 configuration view", () => {
  it("shows the /v1 documents in one, and the real CLI's config push reads it and writes through /v1", async () => {
    const view = (await api(platform.baseUrl, token, "GET", `/v2/projects/${ref}/config`)).body.data;
    expect(view).toMatchObject({ type: "project_config", id: ref });
    expect(view.attributes.database.major_version).toBe(15);
    expect(view.attributes.api.db_schema).toBe((await call("GET", "/postgrest")).body.db_schema);
    expect(view.attributes.auth.site_url).toBe((await call("GET", "/config/auth")).body.site_url);
    expect(view.attributes.pooler.pool_mode).toBe("none");
    expect(view.attributes.storage.file_size_limit).toBe((await call("GET", "/config/storage")).body.fileSizeLimit);
    expect((await api(platform.baseUrl, token, "GET", "/v2/projects/zzzzzzzzzzzzzzzzzzzz/config")).status).toBe(403);

    const cli = supabaseCli(platform.baseUrl, token);
    try {
      expect((await cli.run("init")).code).toBe(0);
      const tomlPath = join(cli.home, "supabase", "config.toml");
      const toml = readFileSync(tomlPath, "utf8");
      // A schema the database lacks is refused by the Data API settings, with nothing changed.
      const refused = await cli.run("config", "push", `--remote=${ref}`, "--yes");
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("No schema");
      expect((await call("GET", "/postgrest")).body.max_rows).toBe(view.attributes.api.max_rows);

      writeFileSync(tomlPath, toml.replace(/^schemas = .*$/m, 'schemas = ["public"]').replace(/^extra_search_path = .*$/m, 'extra_search_path = ["public"]').replace(/^max_rows = .*$/m, "max_rows = 321"));
      const pushed = await cli.run("config", "push", `--remote=${ref}`, "--yes");
      expect(pushed.code, pushed.stderr + pushed.stdout).toBe(0);
      expect((await call("GET", "/postgrest")).body.max_rows).toBe(321);
      expect((await api(platform.baseUrl, token, "GET", `/v2/projects/${ref}/config`)).body.data.attributes.api.max_rows).toBe(321);

      const backups = await cli.run("backups", "list", `--remote=${ref}`);
      expect(backups.code, backups.stderr + backups.stdout).toBe(0);
      expect(backups.stdout).toContain("WALG");
    } finally {
      cli.close();
    }
  });
});

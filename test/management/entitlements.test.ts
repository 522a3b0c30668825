// An organization's entitlements over HTTP: every feature key of the published document once, each
// answer shaped by its type, granted only where this server does the work; another user's or an
// unknown organization is refused the same way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishedDocument } from "../../server/src/management/openapi/managementDocument";
import { api, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let slug: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("entitled@example.com");
  slug = (await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "Entitled" })).body.slug;
});
afterAll(async () => {
  await platform.close();
});

/** The feature keys the document lists, in its order. */
function documentKeys(): string[] {
  const schema = (publishedDocument() as any).components.schemas.V1ListEntitlementsResponse;
  return schema.properties.entitlements.items.properties.feature.properties.key.enum;
}

describe("organization entitlements", () => {
  it("answers every feature of the document once, shaped by its type", async () => {
    const answer = await api(platform.baseUrl, token, "GET", `/v1/organizations/${slug}/entitlements`);
    expect(answer.status).toBe(200);
    const list = answer.body.entitlements as any[];
    expect(list.map((e) => e.feature.key)).toEqual(documentKeys());
    for (const e of list) {
      expect(e.type, e.feature.key).toBe(e.feature.type);
      expect(e.config.enabled, e.feature.key).toBe(e.hasAccess);
      const keys = Object.keys(e.config).sort();
      if (e.type === "boolean") expect(keys, e.feature.key).toEqual(["enabled"]);
      if (e.type === "numeric") expect(keys, e.feature.key).toEqual(["enabled", "unit", "unlimited", "value"]);
      if (e.type === "set") expect(keys, e.feature.key).toEqual(["enabled", "set"]);
    }
    const byKey = new Map(list.map((e) => [e.feature.key, e]));
    // What this server does: pausing, backup schedules (7 daily kept), unlimited branches.
    expect(byKey.get("project_pausing").hasAccess).toBe(true);
    expect(byKey.get("backup.schedule").hasAccess).toBe(true);
    expect(byKey.get("backup.retention_days").config).toEqual({ enabled: true, value: 7, unlimited: false, unit: "days" });
    expect(byKey.get("branching_limit").config).toMatchObject({ enabled: true, unlimited: true });
    expect(byKey.get("function.size_limit_mb").config).toMatchObject({ enabled: true, value: 20 });
    // What it only records, or has no service for.
    for (const key of ["instances.read_replicas", "instances.disk_modifications", "custom_domain", "vanity_subdomain", "storage.image_transformations", "auth.hooks"]) {
      expect(byKey.get(key).hasAccess, key).toBe(false);
    }
    expect(byKey.get("pitr.available_variants").config).toEqual({ enabled: false, set: [] });
  });

  it("refuses another user's organization and an unknown one alike", async () => {
    const other = await platform.token("outsider@example.com");
    const theirs = await api(platform.baseUrl, other, "GET", `/v1/organizations/${slug}/entitlements`);
    const unknown = await api(platform.baseUrl, token, "GET", "/v1/organizations/nosuchorganization/entitlements");
    expect(theirs.status).toBe(403);
    expect(unknown.status).toBe(403);
    expect(theirs.body).toEqual(unknown.body);
    expect((await api(platform.baseUrl, "not-a-token", "GET", `/v1/organizations/${slug}/entitlements`)).status).toBe(401);
  });
});

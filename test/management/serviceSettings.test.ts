// Realtime and Storage settings over HTTP: defaults, a change validated against the document and
// stored (partial changes merged), bad input refused with nothing changed, and buckets refused
// with the reason (no Storage service runs here).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("settings@example.com");
  const org = await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "Settings" });
  ref = (await api(platform.baseUrl, token, "POST", "/v1/projects", { name: "set", organization_slug: org.body.slug, region: "us-east-1", db_pass: "set-password" })).body.ref;
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, `/v1/projects/${ref}${path}`, body);

describe("service settings", () => {
  it("stores realtime settings and refuses out-of-range values", async () => {
    expect((await call("GET", "/config/realtime")).body).toMatchObject({ max_concurrent_users: 200, suspend: false });
    expect((await call("PATCH", "/config/realtime", { max_concurrent_users: 500, private_only: true })).status).toBe(204);
    const bad = await call("PATCH", "/config/realtime", { max_concurrent_users: 0 });
    expect(bad.status).toBe(400);
    expect((await call("PATCH", "/config/realtime", { unknown_field: 1 })).status).toBe(400);
    expect((await call("GET", "/config/realtime")).body).toMatchObject({ max_concurrent_users: 500, private_only: true, max_joins_per_second: 100 });
  });

  it("says there are no realtime connections to shut down, and changes nothing", async () => {
    const before = (await call("GET", "/config/realtime")).body;
    const answer = await call("POST", "/config/realtime/shutdown");
    expect(answer.status).toBe(404);
    expect(answer.body.message).toContain("no realtime connections");
    expect((await call("GET", "/config/realtime")).body).toEqual(before);
  });

  it("stores storage settings, merging partial feature changes", async () => {
    expect((await call("PATCH", "/config/storage", { fileSizeLimit: 1024, features: { s3Protocol: { enabled: true } } })).status).toBe(200);
    expect((await call("PATCH", "/config/storage", { features: { imageTransformation: { enabled: true } } })).status).toBe(200);
    expect((await call("PATCH", "/config/storage", { fileSizeLimit: -1 })).status).toBe(400);
    const stored = (await call("GET", "/config/storage")).body;
    expect(stored.fileSizeLimit).toBe(1024);
    expect(stored.features.s3Protocol).toEqual({ enabled: true });
    expect(stored.features.imageTransformation).toEqual({ enabled: true });
    expect(stored.features.vectorBuckets).toEqual({ enabled: false, maxBuckets: 0, maxIndexes: 0 });
  });

  it("refuses buckets, saying there is no Storage service", async () => {
    const buckets = await call("GET", "/storage/buckets");
    expect(buckets.status).toBe(400);
    expect(buckets.body.message).toContain("no Storage service");
  });
});

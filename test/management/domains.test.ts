// Custom hostnames and vanity subdomains over HTTP: the hostname steps in order (initialize →
// reverify against the DNS TXT record → activate, DELETE), out-of-order steps refused with nothing
// changed, and vanity subdomains unique across every project.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
const refs: string[] = [];
const txt = new Map<string, string>();

beforeAll(async () => {
  platform = await startPlatform({ resolveTxt: async (name) => (txt.has(name) ? [[txt.get(name)!]] : []) });
  token = await platform.token("domains@example.com");
  const org = await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "Domains" });
  for (const name of ["dom-a", "dom-b"]) {
    const project = await api(platform.baseUrl, token, "POST", "/v1/projects", { name, organization_slug: org.body.slug, region: "us-east-1", db_pass: "domain-password" });
    refs.push(project.body.ref);
  }
});
afterAll(async () => {
  for (const ref of refs) await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, `/v1/projects/${refs[0]}${path}`, body);

describe("custom hostname", () => {
  it("refuses out-of-order steps and bad hostnames, changing nothing", async () => {
    expect((await call("GET", "/custom-hostname")).body.status).toBe("1_not_started");
    const early = await call("POST", "/custom-hostname/reverify");
    expect(early.status).toBe(400);
    expect(early.body.message).toContain("Initialize a custom hostname");
    expect((await call("POST", "/custom-hostname/activate")).status).toBe(400);
    const bad = await call("POST", "/custom-hostname/initialize", { custom_hostname: "not a host" });
    expect(bad.status).toBe(400);
    expect((await call("GET", "/custom-hostname")).body.status).toBe("1_not_started");
  });

  it("initializes, verifies the TXT record, activates, and deletes", async () => {
    const init = await call("POST", "/custom-hostname/initialize", { custom_hostname: "API.Example.com" });
    expect(init.status).toBe(201);
    expect(init.body).toMatchObject({ status: "2_initiated", custom_hostname: "api.example.com" });
    const record = init.body.data.result.ownership_verification;
    expect(record.name).toBe("_pg-graphql-challenge.api.example.com");
    expect(init.body.data.messages.join(" ")).toContain("issues no certificate");

    expect((await call("POST", "/custom-hostname/activate")).status).toBe(400);
    const missing = await call("POST", "/custom-hostname/reverify");
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("does not hold");

    txt.set(record.name, record.value);
    expect((await call("POST", "/custom-hostname/reverify")).body.status).toBe("3_challenge_verified");
    expect((await call("POST", "/custom-hostname/reverify")).status).toBe(400);
    const active = await call("POST", "/custom-hostname/activate");
    expect(active.status).toBe(201);
    expect(active.body.data.result.status).toBe("active");
    expect((await call("POST", "/custom-hostname/initialize", { custom_hostname: "other.example.com" })).status).toBe(400);
    expect((await call("GET", "/vanity-subdomain")).body).toEqual({ status: "custom-domain-used" });
    expect((await call("POST", "/vanity-subdomain/activate", { vanity_subdomain: "acme" })).status).toBe(400);

    expect((await call("DELETE", "/custom-hostname")).status).toBe(200);
    expect((await call("GET", "/custom-hostname")).body).toMatchObject({ status: "1_not_started", custom_hostname: "" });
  });
});

describe("vanity subdomain", () => {
  it("is unique across projects and is no project's ref", async () => {
    expect((await call("GET", "/vanity-subdomain")).body).toEqual({ status: "not-used" });
    expect((await call("POST", "/vanity-subdomain/check-availability", { vanity_subdomain: "acme-prod" })).body).toEqual({ available: true });
    expect((await call("POST", "/vanity-subdomain/check-availability", { vanity_subdomain: refs[1] })).body).toEqual({ available: false });
    expect((await call("POST", "/vanity-subdomain/check-availability", { vanity_subdomain: "Bad_Name" })).body).toEqual({ available: false });
    expect((await call("POST", "/vanity-subdomain/activate", { vanity_subdomain: "-bad" })).status).toBe(400);
    expect((await call("POST", "/vanity-subdomain/activate", { vanity_subdomain: "acme-prod" })).body).toEqual({ custom_domain: "acme-prod" });
    expect((await call("GET", "/vanity-subdomain")).body).toEqual({ status: "active", custom_domain: "acme-prod" });

    const other = (path: string, body: unknown) => api(platform.baseUrl, token, "POST", `/v1/projects/${refs[1]}${path}`, body);
    expect((await other("/vanity-subdomain/check-availability", { vanity_subdomain: "acme-prod" })).body).toEqual({ available: false });
    const taken = await other("/vanity-subdomain/activate", { vanity_subdomain: "acme-prod" });
    expect(taken.status).toBe(409);

    expect((await call("DELETE", "/vanity-subdomain")).status).toBe(200);
    expect((await other("/vanity-subdomain/check-availability", { vanity_subdomain: "acme-prod" })).body).toEqual({ available: true });
  });
});

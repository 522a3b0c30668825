// A project's auth configuration and SAML providers over real HTTP: every field of the document
// read, patched and read back; invalid values refused with the field named and nothing stored;
// SAML providers gated by saml_enabled, their metadata parsed, domains and entity ids unique.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishedDocument } from "../../server/src/management/openapi/managementDocument";
import { api, startPlatform, type TestPlatform } from "./support";
import { newerFields } from "../../server/src/management/openapi/authNewerFields";

let platform: TestPlatform;
let token: string;
let ref: string;
let otherRef: string;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const configPath = () => `/v1/projects/${ref}/config/auth`;
const metadata = readFileSync(new URL("./fixtures/saml-idp-metadata.xml", import.meta.url), "utf8");

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("auth@example.com");
  const slug = (await call("POST", "/v1/organizations", { name: "Auth" })).body.slug;
  const project = (name: string) => call("POST", "/v1/projects", { name, organization_slug: slug, region: "eu-west-1", db_pass: "a-password-1" });
  ref = (await project("auth-a")).body.ref;
  otherRef = (await project("auth-b")).body.ref;
});
afterAll(async () => platform?.close());

type FieldSchema = { type: string; enum?: unknown[]; format?: string; minimum?: number; maximum?: number };

/** A valid value for a field that differs from its default, from its schema alone. */
function valueFor(name: string, field: FieldSchema, defaults: Record<string, unknown>): unknown {
  if (field.enum) return field.enum.find((v) => v !== defaults[name] && v !== null);
  switch (field.type) {
    case "boolean":
      return defaults[name] !== true;
    case "integer":
    case "number":
      return Math.min(Math.max(field.minimum ?? 0, 7), field.maximum ?? Number.MAX_SAFE_INTEGER);
    default:
      if (field.format === "email") return "admin@example.test";
      if (field.format === "date-time") return "2030-01-02T03:04:05.000Z";
      if (name === "sessions_tags") return "team_a, team_b";
      if (name === "sms_test_otp") return "15551234567=123456";
      if (name.endsWith("_url")) return `https://${name.replace(/_/g, "-")}.example.test`;
      return `value of ${name}`;
  }
}

describe("auth configuration", () => {
  const schemas = publishedDocument().components.schemas;
  const responseFields = [...Object.keys(schemas["AuthConfigResponse"].properties), ...Object.keys(newerFields)];
  const updateFields = schemas["UpdateAuthConfigBody"].properties as Record<string, FieldSchema>;

  it("reads every field of the document", async () => {
    const r = await call("GET", configPath());
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([...responseFields].sort());
    expect(r.body).toMatchObject({ jwt_exp: 3600, disable_signup: false, saml_enabled: false, smtp_pass: null });
  });

  it("round-trips every patchable field, secrets included", async () => {
    const defaults = (await call("GET", configPath())).body;
    const patch = Object.fromEntries(Object.entries(updateFields).map(([name, field]) => [name, valueFor(name, field, defaults)]));
    const r = await call("PATCH", configPath(), patch);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject(patch);
    const read = (await call("GET", configPath())).body;
    expect(read).toMatchObject(patch);
    for (const name of Object.keys(patch)) expect(read[name], name).not.toEqual(defaults[name]);
    const other = (await call("GET", `/v1/projects/${otherRef}/config/auth`)).body;
    expect(other.smtp_pass).toBeNull();
  });

  it("merges a patch into what is stored, and null clears a field", async () => {
    const before = (await call("GET", configPath())).body;
    const r = await call("PATCH", configPath(), { site_url: "https://app.example.test", smtp_pass: null });
    expect(r.body).toEqual({ ...before, site_url: "https://app.example.test", smtp_pass: null });
  });

  it("refuses invalid values with 400 naming the field, storing nothing", async () => {
    const before = (await call("GET", configPath())).body;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ jwt_exp: -1 }, /jwt_exp/],
      [{ jwt_exp: 604801 }, /jwt_exp/],
      [{ disable_signup: "yes" }, /disable_signup/],
      [{ sms_provider: "carrier-pigeon" }, /sms_provider/],
      [{ smtp_admin_email: "not an email" }, /smtp_admin_email/],
      [{ site_url: "a,b" }, /site_url/],
      [{ password_min_length: 2 }, /password_min_length/],
      [{ no_such_setting: true }, /no_such_setting|additional properties/],
      [{ saml_allow_encrypted_assertions: true }, /saml_allow_encrypted_assertions|additional properties/],
      [{ site_url: "https://ok.example.test", jwt_exp: "3600" }, /jwt_exp/],
    ];
    for (const [body, message] of cases) {
      const r = await call("PATCH", configPath(), body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", configPath())).body).toEqual(before);
  });
});

describe("SAML SSO providers", () => {
  const providersPath = () => `${configPath()}/sso/providers`;
  let provider: any;

  it("are refused with 404 while SAML is disabled", async () => {
    const r = await call("GET", `/v1/projects/${otherRef}/config/auth/sso/providers`);
    expect(r.status).toBe(404);
    expect(r.body.message).toMatch(/SAML 2.0 is disabled/);
    expect((await call("POST", `/v1/projects/${otherRef}/config/auth/sso/providers`, { type: "saml", metadata_xml: metadata })).status).toBe(404);
  });

  it("parse the metadata for the entity id and keep the domains", async () => {
    expect((await call("PATCH", configPath(), { saml_enabled: true })).status).toBe(200);
    const r = await call("POST", providersPath(), {
      type: "saml",
      metadata_xml: metadata,
      domains: ["Example.test", "corp.example.test"],
      attribute_mapping: { keys: { email: { name: "mail" } } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.saml).toMatchObject({ entity_id: "https://idp.example.test/metadata", metadata_xml: metadata, attribute_mapping: { keys: { email: { name: "mail" } } } });
    expect(r.body.domains.map((d: any) => d.domain)).toEqual(["corp.example.test", "example.test"]);
    provider = r.body;
    expect((await call("GET", providersPath())).body).toEqual({ items: [provider] });
    expect((await call("GET", `${providersPath()}/${provider.id}`)).body).toEqual(provider);
  });

  it("refuse bad metadata, bad or taken domains and duplicates with 400, storing nothing", async () => {
    const cases: [unknown, RegExp][] = [
      [{ type: "saml", metadata_xml: metadata }, /entity id https:\/\/idp\.example\.test\/metadata already exists/],
      [{ type: "saml", metadata_xml: "<md:EntityDescriptor" }, /not well-formed XML/],
      [{ type: "saml", metadata_xml: "<a><b/></a>" }, /no EntityDescriptor/],
      [{ type: "saml", metadata_xml: metadata.replace(/entityID="[^"]+"/, "") }, /has no entityID/],
      [{ type: "saml", metadata_xml: metadata.replace(/<ds:X509Certificate>[^<]+/, "<ds:X509Certificate>bm90IGEgY2VydA==") }, /not a valid X\.509/],
      [{ type: "saml", metadata_xml: metadata.replace(/<md:KeyDescriptor[\s\S]*<\/md:KeyDescriptor>/, "") }, /no signing certificate/],
      [{ type: "saml", metadata_xml: metadata.replace("IDPSSODescriptor", "SPSSODescriptor").replace("/md:IDPSSODescriptor", "/md:SPSSODescriptor") }, /no identity provider/],
      [{ type: "saml" }, /metadata_xml or metadata_url is required/],
      [{ type: "saml", metadata_xml: metadata, metadata_url: "https://x.example.test" }, /not both/],
      [{ type: "saml", metadata_url: "https://unreachable.invalid/metadata" }, /Could not fetch metadata_url/],
      [{ type: "oidc", metadata_xml: metadata }, /type/],
      [{ type: "saml", metadata_xml: metadata.replace("https://idp.example.test/metadata", "https://idp2.example.test"), domains: ["not a domain"] }, /not a domain name/],
      [{ type: "saml", metadata_xml: metadata.replace("https://idp.example.test/metadata", "https://idp2.example.test"), domains: ["a.test", "A.test"] }, /listed twice/],
      [{ type: "saml", metadata_xml: metadata.replace("https://idp.example.test/metadata", "https://idp2.example.test"), domains: ["example.test"] }, /already used by another SSO provider/],
    ];
    for (const [body, message] of cases) {
      const r = await call("POST", providersPath(), body);
      expect(r.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", providersPath())).body.items).toHaveLength(1);
  });

  it("are updated by PUT (domains replaced) and deleted", async () => {
    const r = await call("PUT", `${providersPath()}/${provider.id}`, { domains: ["example.test", "new.example.test"], name_id_format: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent" });
    expect(r.status).toBe(200);
    expect(r.body.domains.map((d: any) => d.domain)).toEqual(["example.test", "new.example.test"]);
    expect(r.body.domains[0].id).toBe(provider.domains.find((d: any) => d.domain === "example.test").id);
    expect(r.body.saml).toMatchObject({ entity_id: provider.saml.entity_id, name_id_format: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent" });
    expect((await call("PUT", `${providersPath()}/${provider.id}`, { metadata_xml: "<x/>" })).status).toBe(400);
    expect((await call("GET", `${providersPath()}/${provider.id}`)).body.saml.metadata_xml).toBe(metadata);
    const removed = await call("DELETE", `${providersPath()}/${provider.id}`);
    expect(removed.body.id).toBe(provider.id);
    expect((await call("GET", `${providersPath()}/${provider.id}`)).status).toBe(404);
    expect((await call("GET", providersPath())).body).toEqual({ items: [] });
  });
});

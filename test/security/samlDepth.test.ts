// The hostile-tenant suite, SAML metadata: a document nested tens of thousands of levels deep,
// given as text or served at a metadata URL, is refused with a 400 naming the limit, before the
// parser's recursive steps run; nothing is stored and the server goes on answering.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createProject, startPlatform, type TestPlatform } from "../management/support";
import { httpServer } from "./hostileServers";

let platform: TestPlatform;
let token: string;
let ref: string;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const ssoPath = () => `/v1/projects/${ref}/config/auth/sso/providers`;
const nested = (levels: number) => `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://deep.example.test">${"<a>".repeat(levels)}${"</a>".repeat(levels)}</md:EntityDescriptor>`;

beforeAll(async () => {
  // Plain http to 127.0.0.1 reaches the metadata server below.
  platform = await startPlatform({ tenantUrls: { access: "local" } });
  token = await platform.token("saml-depth@example.com");
  ref = (await createProject(platform.baseUrl, token, "saml-depth")).ref;
  expect((await call("PATCH", `/v1/projects/${ref}/config/auth`, { saml_enabled: true })).status).toBe(200);
});
afterAll(async () => {
  if (ref) await call("DELETE", `/v1/projects/${ref}`);
  await platform?.close();
});

describe("deeply nested SAML metadata", () => {
  it("is refused with 400 when given as metadata_xml", async () => {
    const r = await call("POST", ssoPath(), { type: "saml", metadata_xml: nested(60_000) });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("metadata_xml: the metadata nests elements deeper than 32 levels");
    const updated = await call("GET", ssoPath());
    expect(updated.status).toBe(200);
    expect(updated.body.items).toEqual([]);
  });

  it("is refused with 400 when served at metadata_url", async () => {
    const server = await httpServer((_req, res) => res.writeHead(200, { "content-type": "application/xml" }).end(nested(60_000)));
    const r = await call("POST", ssoPath(), { type: "saml", metadata_url: `${server.base}/metadata` });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("metadata_url: the metadata nests elements deeper than 32 levels");
    expect((await call("GET", ssoPath())).body.items).toEqual([]);
    await server.close();
  });
});

// The hostile-tenant suite, outbound requests: URLs a tenant gives the platform to fetch (a JWKS
// URL, an OIDC issuer's discovery document, SAML metadata) cannot reach the platform's host or
// network. Plain http, address literals that are not public and names resolving to them are
// refused; each connection is judged by the address it connects to; redirects are not followed;
// bodies are capped and slow answers cut; no failure tells a port's state, the upstream status or
// what was answered. Two server processes share one platform: one under the default rule, one
// started with `--tenant-urls local` (plain http and loopback allowed) to reach the servers here.
import { readFileSync } from "node:fs";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createProject, startPlatform, type TestPlatform } from "../management/support";
import { closedPort, endlessBody, hangingUpPort, httpServer, testResolver, tricklingBody } from "./hostileServers";

const resolver = testResolver({
  "loopback.idp.test": [["127.0.0.1"]],
  "mixed.idp.test": [["93.184.216.34", "127.0.0.1"]],
  "metadata.idp.test": [["169.254.169.254"]],
  // First lookup: loopback (allowed under `local`); every later one: a private address.
  "flip.idp.test": [["127.0.0.1"], ["10.255.255.1"]],
});

let strict: TestPlatform;
let local: TestPlatform;
let token: string;
let ref: string;
let issuers = 0;

const call = (platform: TestPlatform, method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const tpaPath = () => `/v1/projects/${ref}/config/auth/third-party-auth`;
const ssoPath = () => `/v1/projects/${ref}/config/auth/sso/providers`;
const issuer = () => `https://issuer-${++issuers}.example.test`;
const refusedAddress = "the host's address is not a public one";
const metadata = readFileSync(new URL("../management/fixtures/saml-idp-metadata.xml", import.meta.url), "utf8");

/** A JWKS URL given to a new integration: its resolve_error (the integration is kept). */
async function jwksError(platform: TestPlatform, url: string): Promise<string | null> {
  const r = await call(platform, "POST", tpaPath(), { oidc_issuer_url: issuer(), jwks_url: url });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect(r.body.resolved_jwks).toBeNull();
  return r.body.resolve_error;
}

/** A metadata URL given to a new SAML provider: the 400's message (nothing is stored). */
async function metadataError(platform: TestPlatform, url: string): Promise<string> {
  const r = await call(platform, "POST", ssoPath(), { type: "saml", metadata_url: url });
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  return r.body.message;
}

beforeAll(async () => {
  strict = await startPlatform({ tenantUrls: { access: "public", lookup: resolver.lookup } });
  local = await startPlatform({ platformDatabase: strict.platformDatabase, tenantUrls: { access: "local", lookup: resolver.lookup } });
  token = await strict.token("ssrf@example.com");
  ref = (await createProject(strict.baseUrl, token, "ssrf")).ref;
  expect((await call(strict, "PATCH", `/v1/projects/${ref}/config/auth`, { saml_enabled: true })).status).toBe(200);
});
afterAll(async () => {
  if (ref) await call(strict, "DELETE", `/v1/projects/${ref}`);
  await local?.close({ keepDatabase: true });
  await strict?.close();
});

describe("under the default rule (https to public addresses only)", () => {
  it("refuses plain http, even to loopback, storing nothing", async () => {
    const target = await hangingUpPort();
    const url = `http://127.0.0.1:${target.port}/keys`;
    const integrations = (await call(strict, "GET", tpaPath())).body.length;
    for (const body of [{ oidc_issuer_url: url }, { oidc_issuer_url: issuer(), jwks_url: url }]) {
      const r = await call(strict, "POST", tpaPath(), body);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/must be an https URL/);
    }
    expect(await metadataError(strict, url)).toBe("metadata_url must be an https URL");
    expect(target.connections()).toBe(0);
    expect((await call(strict, "GET", tpaPath())).body.length).toBe(integrations);
    expect((await call(strict, "GET", ssoPath())).body.items).toEqual([]);
    await target.close();
  });

  it("refuses address literals that are not public, in every spelling", async () => {
    const target = await hangingUpPort();
    const integrations = (await call(strict, "GET", tpaPath())).body.length;
    const literals = [
      "127.0.0.1", "127.1.2.3", "2130706433", "0x7f.1", "[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]",
      "0.0.0.0", "[::]", "10.0.0.1", "172.16.0.1", "192.168.0.1", "169.254.169.254", "100.64.0.1", "100.100.100.200",
      "[fd00:ec2::254]", "[fc00::1]", "[fe80::1]", "[64:ff9b::a00:1]", "[2002:7f00:1::]",
    ];
    for (const host of literals) {
      const url = `https://${host}:${target.port}/keys`;
      const r = await call(strict, "POST", tpaPath(), { oidc_issuer_url: issuer(), jwks_url: url });
      expect(r.status, host).toBe(400);
      expect(r.body.message, host).toBe(`jwks_url: ${refusedAddress} (loopback, private, link-local, metadata and other special addresses are refused)`);
      expect(await metadataError(strict, url), host).toMatch(new RegExp(`^metadata_url: ${refusedAddress}`));
    }
    expect(target.connections()).toBe(0);
    expect((await call(strict, "GET", tpaPath())).body.length).toBe(integrations);
    expect((await call(strict, "GET", ssoPath())).body.items).toEqual([]);
    await target.close();
  });

  it("refuses names that resolve to such an address, judged as the socket connects", async () => {
    const target = await hangingUpPort();
    for (const host of ["localhost", "loopback.idp.test", "mixed.idp.test", "metadata.idp.test"]) {
      const base = `https://${host}:${target.port}`;
      expect(await jwksError(strict, `${base}/keys`), host).toMatch(new RegExp(`^could not fetch keys from ${base}/keys: ${refusedAddress}`));
      const discovered = await call(strict, "POST", tpaPath(), { oidc_issuer_url: base });
      expect(discovered.body.resolve_error, host).toMatch(new RegExp(`^could not fetch keys from ${base}/.well-known/openid-configuration \\(OpenID discovery\\): ${refusedAddress}`));
      expect(await metadataError(strict, `${base}/metadata`), host).toMatch(new RegExp(`^Could not fetch metadata_url ${base}/metadata: ${refusedAddress}`));
    }
    expect(resolver.lookups("loopback.idp.test")).toBe(3);
    expect(target.connections()).toBe(0);
    await target.close();
  });

  it("fetches a stored URL under the rule in force, not the one it was saved under", async () => {
    const jwks = await httpServer((_req, res) => res.writeHead(503).end());
    const url = `${jwks.base}/jwks.json`;
    const created = await call(local, "POST", tpaPath(), { oidc_issuer_url: issuer(), jwks_url: url });
    expect(created.body.resolve_error).toBe(`could not fetch keys from ${url}: it answered with an HTTP error status`);
    const served = jwks.connections();
    expect(served).toBeGreaterThan(0);
    const read = await call(strict, "GET", `${tpaPath()}/${created.body.id}`);
    expect(read.body).toMatchObject({ resolved_at: null, resolve_error: `could not fetch keys from ${url}: only https URLs are fetched` });
    expect(jwks.connections()).toBe(served);
    await jwks.close();
  });
});

describe("with plain http and loopback allowed (--tenant-urls local)", () => {
  it("still refuses other special addresses, and judges each connection by its own lookup", async () => {
    const served: string[] = [];
    const idp = await httpServer((req, res) => {
      served.push(req.url!);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ issuer: `http://flip.idp.test:${idp.port}`, jwks_uri: `http://flip.idp.test:${idp.port}/jwks` }));
    });
    // The discovery document is fetched from 127.0.0.1; the jwks_uri it names, on the same name,
    // now resolves to a private address and is refused before any connection.
    const r = await call(local, "POST", tpaPath(), { oidc_issuer_url: `http://flip.idp.test:${idp.port}` });
    expect(r.body.resolve_error).toBe(
      `could not fetch keys from the jwks_uri that http://flip.idp.test:${idp.port}/.well-known/openid-configuration names: ${refusedAddress} (loopback, private, link-local, metadata and other special addresses are refused)`,
    );
    expect(served).toEqual(["/.well-known/openid-configuration"]);
    expect(resolver.lookups("flip.idp.test")).toBe(2);
    const literal = await call(local, "POST", tpaPath(), { oidc_issuer_url: issuer(), jwks_url: "http://169.254.169.254/latest/meta-data" });
    expect(literal.status).toBe(400);
    expect(literal.body.message).toMatch(new RegExp(`^jwks_url: ${refusedAddress}`));
    await idp.close();
  });

  it("does not follow redirects", async () => {
    const inside = await httpServer((_req, res) => res.end(JSON.stringify({ keys: [] })));
    const redirector = await httpServer((_req, res) => res.writeHead(302, { location: `${inside.base}/internal` }).end());
    const reason = "it answered with a redirect, and redirects are not followed";
    expect(await jwksError(local, `${redirector.base}/jwks`)).toBe(`could not fetch keys from ${redirector.base}/jwks: ${reason}`);
    expect(await metadataError(local, `${redirector.base}/metadata`)).toBe(`Could not fetch metadata_url ${redirector.base}/metadata: ${reason}`);
    expect(redirector.connections()).toBeGreaterThan(0);
    expect(inside.connections()).toBe(0);
    await Promise.all([inside.close(), redirector.close()]);
  });

  it("stops reading an answer past 1 MiB, declared or not", async () => {
    const endless = endlessBody();
    const server = await httpServer((req, res) => {
      if (req.url === "/declared") return res.writeHead(200, { "content-length": String(10 * 1024 ** 3) }).flushHeaders();
      endless.handler(req, res);
    });
    for (const path of ["/endless", "/declared"]) {
      expect(await jwksError(local, `${server.base}${path}`)).toBe(`could not fetch keys from ${server.base}${path}: it answered more than 1 MiB`);
      expect(await metadataError(local, `${server.base}${path}`)).toBe(`Could not fetch metadata_url ${server.base}${path}: it answered more than 1 MiB`);
    }
    // The reader hung up: what left the server is the cap plus what socket buffers hold.
    expect(endless.sent()).toBeLessThan(64 * 1024 * 1024);
    await server.close();
  });

  it("gives up on an answer that never completes", async () => {
    const slow = await httpServer(tricklingBody);
    expect(await jwksError(local, `${slow.base}/jwks`)).toBe(`could not fetch keys from ${slow.base}/jwks: no complete answer within 5 seconds`);
    expect(await metadataError(local, `${slow.base}/metadata`)).toBe(`Could not fetch metadata_url ${slow.base}/metadata: no complete answer within 5 seconds`);
    await slow.close();
  });

  it("names an HTTP error without its status, and never quotes what was answered", async () => {
    const secret = "internal-secret-7f3a";
    const server = await httpServer((req, res) => {
      if (req.url === "/error") return res.writeHead(500, { "content-type": "text/plain" }).end(secret);
      if (req.url === "/page") return res.writeHead(200, { "content-type": "text/html" }).end(`${secret}<html></html>`);
      if (req.url === "/xml") return res.writeHead(200, { "content-type": "application/xml" }).end(`<${secret}>`);
      if (req.url === "/keys") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [{ kty: "oct", k: secret }] }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jwks_uri: `${secret} is not a URL` }));
    });
    const answers = [
      await jwksError(local, `${server.base}/error`),
      await jwksError(local, `${server.base}/page`),
      await jwksError(local, `${server.base}/keys`),
      (await call(local, "POST", tpaPath(), { oidc_issuer_url: `${server.base}/discovery` })).body.resolve_error,
      await metadataError(local, `${server.base}/error`),
      await metadataError(local, `${server.base}/xml`),
    ];
    expect(answers).toEqual([
      `could not fetch keys from ${server.base}/error: it answered with an HTTP error status`,
      `could not fetch keys from ${server.base}/page: it did not answer JSON`,
      `the key set at ${server.base}/keys.keys[0] must be a public asymmetric key`,
      `the OpenID discovery document ${server.base}/discovery/.well-known/openid-configuration names no jwks_uri URL`,
      `Could not fetch metadata_url ${server.base}/error: it answered with an HTTP error status`,
      "metadata_url is not well-formed XML",
    ]);
    for (const answer of answers) {
      expect(answer).not.toContain(secret);
      expect(answer!.replaceAll(server.base, "")).not.toContain("500");
    }
    await server.close();
  });

  it("answers a closed port and one that hangs up alike", async () => {
    const closed = await closedPort();
    const hanging = await hangingUpPort();
    const answers: string[] = [];
    for (const port of [closed, hanging.port]) {
      const url = `http://127.0.0.1:${port}/keys`;
      answers.push((await jwksError(local, url))!.replace(url, "URL"), (await metadataError(local, url)).replace(url, "URL"));
    }
    expect(answers[0]).toBe("could not fetch keys from URL: could not connect (the name did not resolve, or the connection or its TLS handshake failed)");
    expect(answers[1]).toBe("Could not fetch metadata_url URL: could not connect (the name did not resolve, or the connection or its TLS handshake failed)");
    expect(answers.slice(2)).toEqual(answers.slice(0, 2));
    expect(hanging.connections()).toBeGreaterThan(0);
    await hanging.close();
  });

  it("fetches what an identity provider serves", async () => {
    const { publicKey } = await generateKeyPair("RS256", { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid: "idp-1", alg: "RS256" };
    const idp = await httpServer((req, res) => {
      if (req.url === "/metadata") return res.writeHead(200, { "content-type": "application/samlmetadata+xml" }).end(metadata);
      res.setHeader("content-type", "application/json");
      if (req.url === "/.well-known/openid-configuration") return res.end(JSON.stringify({ issuer: idp.base, jwks_uri: `${idp.base}/jwks` }));
      res.end(JSON.stringify({ keys: [publicJwk] }));
    });
    const tpa = await call(local, "POST", tpaPath(), { oidc_issuer_url: idp.base });
    expect(tpa.status).toBe(201);
    expect(tpa.body).toMatchObject({ resolved_jwks: { keys: [publicJwk] }, resolve_error: null });
    const sso = await call(local, "POST", ssoPath(), { type: "saml", metadata_url: `${idp.base}/metadata` });
    expect(sso.status, JSON.stringify(sso.body)).toBe(201);
    expect(sso.body.saml).toMatchObject({ entity_id: "https://idp.example.test/metadata", metadata_url: `${idp.base}/metadata`, metadata_xml: metadata });
    await idp.close();
  });
});

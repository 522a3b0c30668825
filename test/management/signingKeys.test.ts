// A project's signing keys and third-party issuers over real HTTP: the data API trusts exactly
// the keys in use and previously used (asymmetric ones by kid), so a rotation works end to end
// and a revoked key is refused at once in two server processes; the JWKS document publishes the
// public keys; third-party JWTs are accepted from their issuer only; nothing crosses projects.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestWithHost, roleOnBoth, twoProcessesWithProjects, whoami, type TestProject, type TwoProcesses } from "./projectSupport";

let both: TwoProcesses;
beforeAll(async () => {
  // The JWKS server of these tests listens on 127.0.0.1 over plain http.
  both = await twoProcessesWithProjects("signing", { tenantUrls: { access: "local" } });
});
afterAll(async () => both?.close());
const call = (method: string, path: string, body?: unknown) => both.call(method, path, body);
const keysPath = () => `/v1/projects/${both.project.ref}/config/auth/signing-keys`;

interface TestKey {
  alg: "RS256" | "ES256" | "EdDSA";
  privateJwk: JWK;
  sign(claims: Record<string, unknown>, kid?: string): Promise<string>;
}

async function testKey(alg: TestKey["alg"], kid: string): Promise<TestKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid };
  return {
    alg,
    privateJwk,
    sign: (claims, signingKid = kid) =>
      new SignJWT(claims).setProtectedHeader({ alg, kid: signingKid }).setIssuedAt().setExpirationTime("1h").sign(privateKey),
  };
}

const hsToken = (secret: string, claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("1h").sign(new TextEncoder().encode(secret));

/** The role a user token runs as on both processes, or the status refusing it. */
const tokenOnBoth = (jwt: string, target: TestProject = both.project) => roleOnBoth(both, target.ref, target.anon, jwt);

describe("signing keys", () => {
  const ids = { first: "11111111-1111-4111-8111-111111111111", second: "22222222-2222-4222-8222-222222222222" };
  let first: TestKey;
  let next: TestKey;

  it("starts with none, the JWT secret trusted", async () => {
    expect((await call("GET", keysPath())).body).toEqual({ keys: [] });
    expect(await tokenOnBoth(await hsToken(both.project.jwtSecret, { role: "authenticated", sub: "u" }))).toBe("authenticated");
  });

  it("makes a key on standby from a private JWK: published, not yet trusted", async () => {
    first = await testKey("RS256", ids.first);
    const r = await call("POST", keysPath(), { algorithm: "RS256", private_jwk: first.privateJwk });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: ids.first, algorithm: "RS256", status: "standby", public_jwk: { kty: "RSA", kid: ids.first, alg: "RS256" } });
    expect(r.body.public_jwk.d).toBeUndefined();
    const jwks = (await fetch(`${both.platform.baseUrl}/project/${both.project.ref}/auth/v1/.well-known/jwks.json`).then((x) => x.json())) as any;
    expect(jwks.keys.map((k: JWK) => k.kid)).toEqual([ids.first]);
    const byHost = await requestWithHost(both.platform.baseUrl, `${both.project.ref}.projects.example.test`, "/auth/v1/.well-known/jwks.json");
    expect(byHost).toEqual({ status: 200, body: jwks });
    expect(await tokenOnBoth(await first.sign({ role: "authenticated" }))).toBe(401);
  });

  it("rotates: promoted keys are trusted, the key before stays trusted until revoked", async () => {
    const firstToken = await first.sign({ role: "authenticated", sub: "first" });
    expect((await call("PATCH", `${keysPath()}/${ids.first}`, { status: "in_use" })).body.status).toBe("in_use");
    expect(await tokenOnBoth(firstToken)).toBe("authenticated");

    next = await testKey("ES256", ids.second);
    expect((await call("POST", keysPath(), { algorithm: "ES256", status: "in_use", private_jwk: next.privateJwk })).status).toBe(201);
    const statuses = (await call("GET", keysPath())).body.keys.map((k: any) => [k.id, k.status]);
    expect(statuses).toEqual([[ids.first, "previously_used"], [ids.second, "in_use"]]);
    const nextToken = await next.sign({ role: "authenticated", sub: "second" });
    expect(await tokenOnBoth(nextToken)).toBe("authenticated");
    expect(await tokenOnBoth(firstToken)).toBe("authenticated");

    expect((await call("PATCH", `${keysPath()}/${ids.first}`, { status: "revoked" })).body.status).toBe("revoked");
    expect(await tokenOnBoth(firstToken)).toBe(401);
    expect(await tokenOnBoth(nextToken)).toBe("authenticated");
    const jwks = (await fetch(`${both.platform.baseUrl}/project/${both.project.ref}/auth/v1/.well-known/jwks.json`).then((x) => x.json())) as any;
    expect(jwks.keys.map((k: JWK) => k.kid)).toEqual([ids.second]);
  });

  it("refuses a token naming an unknown kid, or signed by a key it does not have", async () => {
    expect(await tokenOnBoth(await next.sign({ role: "authenticated" }, "33333333-3333-4333-8333-333333333333"))).toBe(401);
    const stranger = await testKey("ES256", ids.second);
    const refused = await whoami(both.platform.baseUrl, both.project.ref, both.project.anon, await stranger.sign({ role: "authenticated" }));
    expect(refused).toEqual({ status: 401, message: "Invalid JWT: the token's signature does not match" });
  });

  it("allows only the documented moves; others are 400 and change nothing", async () => {
    const bad: [string, string][] = [
      [ids.second, "standby"],
      [ids.second, "revoked"],
      [ids.first, "in_use"],
    ];
    for (const [id, status] of bad) {
      const r = await call("PATCH", `${keysPath()}/${id}`, { status });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/cannot move from/);
    }
    expect((await call("PATCH", `${keysPath()}/${ids.first}`, { status: "retired" })).status).toBe(400);
    expect((await call("DELETE", `${keysPath()}/${ids.second}`)).body.message).toMatch(/Only a revoked signing key/);
    const statuses = (await call("GET", keysPath())).body.keys.map((k: any) => k.status);
    expect(statuses).toEqual(["revoked", "in_use"]);
  });

  it("restores a revoked key, and deletes one only when revoked", async () => {
    expect((await call("PATCH", `${keysPath()}/${ids.first}`, { status: "previously_used" })).body.status).toBe("previously_used");
    expect(await tokenOnBoth(await first.sign({ role: "authenticated" }))).toBe("authenticated");
    expect((await call("PATCH", `${keysPath()}/${ids.first}`, { status: "revoked" })).status).toBe(200);
    const removed = await call("DELETE", `${keysPath()}/${ids.first}`);
    expect(removed).toMatchObject({ status: 200, body: { id: ids.first, status: "revoked" } });
    expect((await call("GET", `${keysPath()}/${ids.first}`)).status).toBe(404);
  });

  it("generates keys with jose for each algorithm, never answering the private key", async () => {
    for (const algorithm of ["EdDSA", "ES256", "RS256", "HS256"]) {
      const r = await call("POST", keysPath(), { algorithm });
      expect(r.status).toBe(201);
      expect(r.body.status).toBe("standby");
      if (algorithm === "HS256") expect(r.body.public_jwk).toBeNull();
      else expect(r.body.public_jwk).toMatchObject({ alg: algorithm, kid: r.body.id, use: "sig" });
      expect(JSON.stringify(r.body)).not.toMatch(/"d"|"k"/);
    }
  });

  it("keeps one key in use when two are promoted at once", async () => {
    const made = await Promise.all(["ES256", "EdDSA"].map((algorithm) => call("POST", keysPath(), { algorithm })));
    const promoted = await Promise.all(made.map((r) => call("PATCH", `${keysPath()}/${r.body.id}`, { status: "in_use" })));
    expect(promoted.map((r) => r.status)).toEqual([200, 200]);
    const statuses = (await call("GET", keysPath())).body.keys.filter((k: any) => made.some((m) => m.body.id === k.id)).map((k: any) => k.status);
    expect(statuses.sort()).toEqual(["in_use", "previously_used"]);
    expect((await call("GET", keysPath())).body.keys.filter((k: any) => k.status === "in_use")).toHaveLength(1);
  });

  it("refuses a private JWK that does not fit, storing nothing", async () => {
    const before = (await call("GET", keysPath())).body.keys.length;
    const ec = await testKey("ES256", "44444444-4444-4444-8444-444444444444");
    const otherEc = await testKey("ES256", "44444444-4444-4444-8444-444444444444");
    const cases: [unknown, RegExp][] = [
      [{ algorithm: "RS256", private_jwk: ec.privateJwk }, /needs kty RSA/],
      [{ algorithm: "ES256", private_jwk: { ...ec.privateJwk, d: otherEc.privateJwk.d } }, /not a usable ES256 key/],
      [{ algorithm: "HS256", private_jwk: { kty: "oct", k: "c2hvcnQ" } }, /private_jwk/],
      [{ algorithm: "PS512" }, /algorithm/],
      [{ algorithm: "ES256", status: "revoked" }, /status/],
      [{ algorithm: "ES256", private_jwk: { ...ec.privateJwk, kid: ids.second } }, /already exists/],
    ];
    for (const [body, message] of cases) {
      const r = await call("POST", keysPath(), body);
      expect([400, 409], JSON.stringify(body)).toContain(r.status);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", keysPath())).body.keys.length).toBe(before);
  });

  it("registers the JWT secret as the key in use; revoking it retires the secret and the legacy API keys", async () => {
    expect((await call("GET", `${keysPath()}/legacy`)).status).toBe(404);
    const legacy = await call("POST", `${keysPath()}/legacy`);
    expect(legacy).toMatchObject({ status: 201, body: { algorithm: "HS256", status: "in_use", public_jwk: null } });
    expect((await call("POST", `${keysPath()}/legacy`)).status).toBe(409);
    expect((await call("GET", `${keysPath()}/legacy`)).body.id).toBe(legacy.body.id);
    const secretToken = await hsToken(both.project.jwtSecret, { role: "authenticated" });
    expect(await tokenOnBoth(secretToken)).toBe("authenticated");
    expect((await call("GET", `${keysPath()}/${ids.second}`)).body.status).toBe("previously_used");
    // The ES256 key steps back in: standby keys of the previous test are promotable.
    const standby = (await call("GET", keysPath())).body.keys.find((k: any) => k.status === "standby" && k.algorithm === "ES256");
    expect((await call("PATCH", `${keysPath()}/${standby.id}`, { status: "in_use" })).status).toBe(200);
    expect((await call("PATCH", `${keysPath()}/${legacy.body.id}`, { status: "revoked" })).status).toBe(200);
    expect(await tokenOnBoth(secretToken)).toBe(401);
    expect((await whoami(both.second.baseUrl, both.project.ref, both.project.anon)).status).toBe(401);
    expect((await whoami(both.platform.baseUrl, both.other.ref, both.other.anon, await hsToken(both.other.jwtSecret, { role: "authenticated" }))).role).toBe("authenticated");
  });

  it("never lets one project's keys open another", async () => {
    expect(await tokenOnBoth(await next.sign({ role: "authenticated" }), both.other)).toBe(401);
    expect(await tokenOnBoth(await hsToken(both.project.jwtSecret, { role: "authenticated" }), both.other)).toBe(401);
    expect((await call("GET", `/v1/projects/${both.other.ref}/config/auth/signing-keys/${ids.second}`)).status).toBe(404);
    const jwks = (await fetch(`${both.platform.baseUrl}/project/${both.other.ref}/auth/v1/.well-known/jwks.json`).then((x) => x.json())) as any;
    expect(jwks).toEqual({ keys: [] });
  });
});

describe("third-party auth", () => {
  const issuer = "https://issuer.example.test";
  let idp: TestKey;
  let integration: any;
  let jwksServer: Server;
  const tpaPath = () => `/v1/projects/${both.other.ref}/config/auth/third-party-auth`;

  beforeAll(async () => {
    idp = await testKey("RS256", "idp-key-1");
  });
  afterAll(async () => new Promise<void>((resolve) => (jwksServer ? jwksServer.close(() => resolve()) : resolve())));

  it("accepts JWTs signed by the custom JWKS with the issuer checked", async () => {
    const { d, p, q, dp, dq, qi, ...publicJwk } = idp.privateJwk;
    const r = await call("POST", tpaPath(), { oidc_issuer_url: issuer, custom_jwks: { keys: [publicJwk] } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ type: "oidc", oidc_issuer_url: issuer, jwks_url: null, resolved_jwks: { keys: [publicJwk] }, resolve_error: null });
    expect(r.body.resolved_at).toEqual(expect.any(String));
    integration = r.body;
    expect(await tokenOnBoth(await idp.sign({ iss: issuer, role: "authenticated", sub: "tp" }), both.other)).toBe("authenticated");
    const wrongIssuer = await whoami(both.platform.baseUrl, both.other.ref, both.other.anon, await idp.sign({ iss: "https://evil.example.test", role: "authenticated" }));
    expect(wrongIssuer).toEqual({ status: 401, message: "Invalid JWT: the token's issuer (iss) is not accepted" });
    const stranger = await testKey("RS256", "idp-key-1");
    expect(await tokenOnBoth(await stranger.sign({ iss: issuer, role: "authenticated" }), both.other)).toBe(401);
    expect(await tokenOnBoth(await idp.sign({ iss: issuer, role: "authenticated" }), both.project)).toBe(401);
    expect((await call("GET", tpaPath())).body).toEqual([integration]);
    expect((await call("GET", `${tpaPath()}/${integration.id}`)).body).toEqual(integration);
  });

  it("fetches a JWKS URL when reachable, says why not when it is not, and tries again on read", async () => {
    const { d, p, q, dp, dq, qi, ...publicJwk } = idp.privateJwk;
    let up = false;
    jwksServer = createServer((_, res) => {
      if (!up) return res.writeHead(503).end();
      res.setHeader("content-type", "application/json").end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    const down = await call("POST", tpaPath(), { oidc_issuer_url: "https://fetched.example.test", jwks_url: url });
    expect(down.body).toMatchObject({ jwks_url: url, resolved_at: null, resolved_jwks: null, resolve_error: `could not fetch keys from ${url}: it answered with an HTTP error status` });
    expect(await tokenOnBoth(await idp.sign({ iss: "https://fetched.example.test", role: "authenticated" }), both.other)).toBe(401);
    up = true;
    const fetched = await call("GET", `${tpaPath()}/${down.body.id}`);
    expect(fetched.body).toMatchObject({ jwks_url: url, resolved_jwks: { keys: [publicJwk] }, resolve_error: null });
    expect(fetched.body.resolved_at).toEqual(expect.any(String));
    expect(await tokenOnBoth(await idp.sign({ iss: "https://fetched.example.test", role: "authenticated" }), both.other)).toBe("authenticated");
    const unreachable = await call("POST", tpaPath(), { oidc_issuer_url: "https://unreachable.invalid" });
    expect(unreachable.status).toBe(201);
    expect(unreachable.body).toMatchObject({ resolved_at: null, resolved_jwks: null, resolve_error: expect.stringMatching(/could not fetch keys from https:\/\/unreachable\.invalid/) });
    expect(await tokenOnBoth(await idp.sign({ iss: "https://unreachable.invalid", role: "authenticated" }), both.other)).toBe(401);
  });

  it("refuses bad input with 400 and stores nothing", async () => {
    const before = (await call("GET", tpaPath())).body.length;
    const { d, ...withPrivate } = idp.privateJwk;
    const cases: [unknown, RegExp][] = [
      [{ custom_jwks: { keys: [withPrivate] } }, /oidc_issuer_url is required/],
      [{ oidc_issuer_url: "ftp://x.example.test" }, /must be an https URL/],
      [{ oidc_issuer_url: "not a url" }, /not a URL/],
      [{ oidc_issuer_url: "https://a.example.test", custom_jwks: { keys: [idp.privateJwk] } }, /private key material/],
      [{ oidc_issuer_url: "https://a.example.test", custom_jwks: { keys: [] } }, /JWKS document/],
      [{ oidc_issuer_url: "https://a.example.test", custom_jwks: { keys: [{ kty: "RSA", n: "AQAB", e: "AQAB", alg: "RS256" }] } }, /shorter than 2048 bits/],
      [{ oidc_issuer_url: issuer, custom_jwks: { keys: [withPrivate] } }, /private key material|already exists/],
    ];
    for (const [body, message] of cases) {
      const r = await call("POST", tpaPath(), body);
      expect([400, 409], JSON.stringify(body)).toContain(r.status);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", tpaPath())).body.length).toBe(before);
  });

  it("once deleted, its tokens are refused at once", async () => {
    const jwt = await idp.sign({ iss: issuer, role: "authenticated" });
    expect(await tokenOnBoth(jwt, both.other)).toBe("authenticated");
    expect((await call("DELETE", `${tpaPath()}/${integration.id}`)).body.id).toBe(integration.id);
    expect(await tokenOnBoth(jwt, both.other)).toBe(401);
    expect((await call("GET", `${tpaPath()}/${integration.id}`)).status).toBe(404);
  });
});

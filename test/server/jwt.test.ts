// User tokens as PostgREST users expect: HS256/384/512 with the shared secret, RS256/ES256/EdDSA
// from a JWKS file or URL, no role claim → anon, listed extra roles allowed, and never a
// superuser or the login role.
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve, type Running } from "../../server/src/serve";
import { post, secret, startTestServer, type TestServer } from "./support";

let server: TestServer;
let viaUrl: Running;
let jwksHttp: Server;
let folder: string;
const pairs: Record<string, { privateKey: CryptoKey; publicKey: CryptoKey }> = {};
const algorithms = ["RS256", "ES256", "EdDSA"] as const;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "jwks-"));
  const keys = [];
  for (const alg of algorithms) {
    pairs[alg] = await generateKeyPair(alg, { extractable: true });
    keys.push({ ...(await exportJWK(pairs[alg]!.publicKey)), kid: alg, alg, use: "sig" });
  }
  const jwks = JSON.stringify({ keys });
  writeFileSync(join(folder, "jwks.json"), jwks);
  jwksHttp = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(jwks));
  await new Promise<void>((resolve) => jwksHttp.listen(0, "127.0.0.1", resolve));
  const port = (jwksHttp.address() as { port: number }).port;
  server = await startTestServer({
    schema: `
      create role editor nologin noinherit;
      grant editor to authenticator;
      grant usage on schema public to editor;
      create function public.whoami() returns text language sql stable as $$ select current_user::text $$;
      grant execute on function public.whoami() to anon, authenticated, editor;`,
    config: { jwks: join(folder, "jwks.json"), extraRoles: ["editor"] },
  });
  viaUrl = await serve({ ...server.running.app.config, jwks: `http://127.0.0.1:${port}/jwks.json`, port: 0 });
});
afterAll(async () => {
  await viaUrl?.app.close();
  await server.close();
  jwksHttp?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

function signed(claims: JWTPayload, alg: string, key: CryptoKey | Uint8Array): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, kid: alg }).setIssuedAt().setExpirationTime("1h").sign(key);
}
const hmac = (claims: JWTPayload, alg: string) => signed(claims, alg, new TextEncoder().encode(secret));

/** The database role a request with this token ran as (or its HTTP refusal). */
async function roleOf(token: string, endpoint = server.endpoint): Promise<string> {
  const r = await post(endpoint, server.anonKey, { query: "{ whoami }" }, token);
  if (r.status !== 200) return `${r.status}: ${r.json.message}`;
  return r.json.data?.whoami ?? JSON.stringify(r.json.errors);
}

describe("shared secret", () => {
  it("accepts HS256, HS384 and HS512", async (ctx) => {
    if (!server.extension) ctx.skip();
    for (const alg of ["HS256", "HS384", "HS512"]) expect(await roleOf(await hmac({ role: "authenticated" }, alg))).toBe("authenticated");
  });

  it("runs a token without a role claim as anon", async (ctx) => {
    if (!server.extension) ctx.skip();
    expect(await roleOf(await hmac({ sub: "u1" }, "HS256"))).toBe("anon");
  });

  it("allows a listed extra role and refuses others, the login role and superusers", async (ctx) => {
    if (!server.extension) ctx.skip();
    expect(await roleOf(await hmac({ role: "editor" }, "HS512"))).toBe("editor");
    for (const role of ["writer", "authenticator", "postgres"]) {
      expect(await roleOf(await hmac({ role }, "HS256"))).toBe(
        "401: Invalid JWT: its role claim names none of anon, authenticated, service_role, editor",
      );
    }
  });

  it("refuses to start with a superuser or the login role among the extra roles", async () => {
    for (const [role, problem] of [["postgres", "is a superuser"], ["authenticator", "is the login role"], ["nobody", "does not exist"]]) {
      await expect(serve({ ...server.running.app.config, extraRoles: [role!], port: 0 })).rejects.toThrow(`--jwt-roles: "${role}" ${problem}`);
    }
  });
});

describe("asymmetric keys from a JWKS", () => {
  it("accepts RS256, ES256 and EdDSA from a file and from a URL", async (ctx) => {
    if (!server.extension) ctx.skip();
    for (const alg of algorithms) {
      const token = await signed({ role: "authenticated" }, alg, pairs[alg]!.privateKey);
      expect(await roleOf(token)).toBe("authenticated");
      expect(await roleOf(token, `${viaUrl.baseUrl}/graphql/v1`)).toBe("authenticated");
    }
  });

  it("refuses a token signed by a key outside the set, or HS256 keyed with a public key", async () => {
    const stranger = await generateKeyPair("ES256");
    expect(await roleOf(await signed({ role: "authenticated" }, "ES256", stranger.privateKey))).toBe(
      "401: Invalid JWT: the token's signature does not match",
    );
    const publicJwk = JSON.stringify(await exportJWK(pairs.RS256!.publicKey));
    const confused = await signed({ role: "service_role" }, "HS256", new TextEncoder().encode(publicJwk));
    expect(await roleOf(confused)).toBe("401: Invalid JWT: the token's signature does not match");
  });
});

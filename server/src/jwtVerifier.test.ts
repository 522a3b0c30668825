import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { asymmetricAlgorithms, JwtVerifier, sharedSecretSource } from "./jwtVerifier";

const hs = (secret: string, claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(secret));

describe("JwtVerifier with several sources for one algorithm", () => {
  it("accepts a token whose key is any of them, and refuses one signed by none", async () => {
    const verifier = new JwtVerifier([sharedSecretSource("first-secret-long-enough-0000000"), sharedSecretSource("second-secret-long-enough-000000")]);
    expect(await verifier.verify(await hs("second-secret-long-enough-000000", { sub: "b" }))).toMatchObject({ kind: "valid", claims: { sub: "b" } });
    expect(await verifier.verify(await hs("third-secret-long-enough-0000000", { sub: "c" }))).toEqual({
      kind: "invalid",
      reason: "the token's signature does not match",
    });
  });

  it("checks the issuer a source fixes, and says so when only the issuer is wrong", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" };
    const source = { name: "issuer", algorithms: asymmetricAlgorithms, key: createLocalJWKSet({ keys: [jwk] }), issuer: "https://issuer.example.test" };
    const verifier = new JwtVerifier([sharedSecretSource("unrelated-secret-long-enough-000"), source]);
    const sign = (iss: string) => new SignJWT({ iss }).setProtectedHeader({ alg: "ES256", kid: "k1" }).sign(privateKey);
    expect(await verifier.verify(await sign("https://issuer.example.test"))).toMatchObject({ kind: "valid" });
    expect(await verifier.verify(await sign("https://other.example.test"))).toEqual({ kind: "invalid", reason: "the token's issuer (iss) is not accepted" });
  });

  it("stops at an expired token instead of trying the other sources", async () => {
    const verifier = new JwtVerifier([sharedSecretSource("first-secret-long-enough-0000000"), sharedSecretSource("second-secret-long-enough-000000")]);
    const expired = await hs("first-secret-long-enough-0000000", { exp: Math.floor(Date.now() / 1000) - 10 });
    expect(await verifier.verify(expired)).toEqual({ kind: "invalid", reason: "the token has expired" });
  });
});

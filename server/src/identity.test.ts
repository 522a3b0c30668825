import { afterEach, describe, expect, it, vi } from "vitest";
import { allowedRoles, identify, rememberedIdentity, type Authenticator } from "./identity";
import { JwtVerifier, sharedSecretSource } from "./jwtVerifier";
import { Keyring } from "./keys";

const secret = "a-secret-that-is-long-enough-for-hs256-keys";

function authenticatorWith(opaqueKeys: Record<string, { role: string }> = {}): Authenticator {
  return {
    keyring: new Keyring(secret),
    opaqueKeys: new Map(Object.entries(opaqueKeys)),
    userTokens: new JwtVerifier([sharedSecretSource(secret)]),
    roles: allowedRoles([]),
  };
}

describe("remembered identities", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers a repeated request from memory until the token expires, then refuses it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    const auth = authenticatorWith();
    const now = Math.floor(Date.now() / 1000);
    const apiKey = await auth.keyring.sign({ role: "anon", exp: now + 3600 });
    const token = await auth.keyring.sign({ role: "authenticated", sub: "u1", exp: now + 60 });
    const headers = { apikey: apiKey, authorization: `Bearer ${token}` };

    expect(rememberedIdentity(auth, headers)).toBeUndefined();
    const first = await identify(auth, headers);
    expect(first).toMatchObject({ kind: "allowed", role: "authenticated", claims: { sub: "u1" } });
    expect(rememberedIdentity(auth, headers)).toBe(first);

    vi.setSystemTime(new Date("2030-01-01T00:00:59Z"));
    expect(rememberedIdentity(auth, headers)).toBe(first);
    vi.setSystemTime(new Date("2030-01-01T00:01:00Z"));
    expect(rememberedIdentity(auth, headers)).toBeUndefined();
    expect(await identify(auth, headers)).toEqual({ kind: "refused", message: "Invalid JWT: the token has expired" });
  });

  it("bounds a remembered identity by the API key's expiry too", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    const auth = authenticatorWith();
    const now = Math.floor(Date.now() / 1000);
    const headers = { apikey: await auth.keyring.sign({ role: "anon", exp: now + 10 }) };
    expect((await identify(auth, headers)).kind).toBe("allowed");
    vi.setSystemTime(new Date("2030-01-01T00:00:10Z"));
    expect(rememberedIdentity(auth, headers)).toBeUndefined();
    expect(await identify(auth, headers)).toEqual({ kind: "refused", message: "Invalid API key" });
  });

  it("never lends a remembered identity to another token with the same API key", async () => {
    const auth = authenticatorWith();
    const apiKey = await auth.keyring.sign({ role: "anon" });
    const token = await auth.keyring.sign({ role: "authenticated", sub: "u1" });
    expect((await identify(auth, { apikey: apiKey, authorization: `Bearer ${token}` })).kind).toBe("allowed");
    const [header, payload] = token.split(".");
    const forged = `Bearer ${header}.${payload}.${"A".repeat(43)}`;
    expect(rememberedIdentity(auth, { apikey: apiKey, authorization: forged })).toBeUndefined();
    expect(await identify(auth, { apikey: apiKey, authorization: forged })).toEqual({
      kind: "refused",
      message: "Invalid JWT: the token's signature does not match",
    });
    // The API key alone is another request: it runs as the key's role, not the token's.
    expect(await identify(auth, { apikey: apiKey })).toMatchObject({ kind: "allowed", role: "anon" });
  });

  it("forgets a key removed from the project: its keys come with a new authenticator", async () => {
    const before = authenticatorWith({ sb_secret_removed: { role: "service_role" }, sb_publishable_kept: { role: "anon" } });
    expect(await identify(before, { apikey: "sb_secret_removed" })).toMatchObject({ kind: "allowed", role: "service_role" });
    expect(rememberedIdentity(before, { apikey: "sb_secret_removed" })).toBeDefined();

    const after = authenticatorWith({ sb_publishable_kept: { role: "anon" } });
    expect(rememberedIdentity(after, { apikey: "sb_secret_removed" })).toBeUndefined();
    expect(await identify(after, { apikey: "sb_secret_removed" })).toEqual({ kind: "refused", message: "Invalid API key" });
    expect(await identify(after, { apikey: "sb_publishable_kept" })).toMatchObject({ kind: "allowed", role: "anon" });
  });

  it("does not remember refusals", async () => {
    const auth = authenticatorWith();
    const headers = { apikey: "not-a-key" };
    expect(await identify(auth, headers)).toEqual({ kind: "refused", message: "Invalid API key" });
    expect(rememberedIdentity(auth, headers)).toBeUndefined();
  });
});

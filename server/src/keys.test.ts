import { afterEach, describe, expect, it, vi } from "vitest";
import { Keyring } from "./keys";

describe("Keyring.verify", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("refuses a remembered token once it has expired", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    const keyring = new Keyring("a-secret-that-is-long-enough-for-hs256-keys");
    const now = Math.floor(Date.now() / 1000);
    const token = await keyring.sign({ role: "authenticated", sub: "u1", exp: now + 60 });

    expect(await keyring.verify(token)).toEqual({ kind: "valid", claims: expect.objectContaining({ sub: "u1" }) });
    expect(await keyring.verify(token)).toEqual({ kind: "valid", claims: expect.objectContaining({ sub: "u1" }) });

    vi.setSystemTime(new Date("2030-01-01T00:01:00Z"));
    expect(await keyring.verify(token)).toEqual({ kind: "invalid", reason: "the token has expired" });
  });

  it("does not accept a token that differs from a remembered one", async () => {
    const keyring = new Keyring("a-secret-that-is-long-enough-for-hs256-keys");
    const token = await keyring.sign({ role: "anon" });
    expect((await keyring.verify(token)).kind).toBe("valid");
    const [header, payload] = token.split(".");
    const forged = `${header}.${payload}.${"A".repeat(43)}`;
    expect(await keyring.verify(forged)).toEqual({ kind: "invalid", reason: "the token's signature does not match" });
  });

  it("waits for a token's not-before time, even once verified", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
    const keyring = new Keyring("a-secret-that-is-long-enough-for-hs256-keys");
    const now = Math.floor(Date.now() / 1000);
    const token = await keyring.sign({ role: "anon", nbf: now + 30 });
    expect((await keyring.verify(token)).kind).toBe("invalid");
    vi.setSystemTime(new Date("2030-01-01T00:00:31Z"));
    expect((await keyring.verify(token)).kind).toBe("valid");
    expect((await keyring.verify(token)).kind).toBe("valid");
  });
});

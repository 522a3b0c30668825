import { describe, expect, it } from "vitest";
import { RateLimit } from "./rateLimit";

const headers = (values: Record<string, string>) => new Headers(values);

describe("RateLimit", () => {
  it("keeps the limit, the calls left and the end of the window", () => {
    const rate = new RateLimit();
    rate.observe(headers({ "x-ratelimit-limit": "60", "x-ratelimit-remaining": "42", "x-ratelimit-reset": "17" }), 200, 1_000);
    expect(rate.current()).toEqual({ limit: 60, remaining: 42, resetAt: 18_000 });
    expect(rate.blockedFor(1_000)).toBe(0);
  });

  it("blocks every call for a 429's Retry-After", () => {
    const rate = new RateLimit();
    rate.observe(headers({ "x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "30", "retry-after": "30" }), 429, 0);
    expect(rate.blockedFor(10_000)).toBe(20_000);
    expect(rate.blockedFor(30_000)).toBe(0);
    expect(rate.pollWait(10_000)).toBe(20_000);
  });

  it("lets polling spend calls only above the reserve", () => {
    const rate = new RateLimit();
    rate.observe(headers({ "x-ratelimit-remaining": "25", "x-ratelimit-reset": "40" }), 200, 0);
    expect(rate.pollWait(0)).toBe(0);
    rate.observe(headers({ "x-ratelimit-remaining": "10", "x-ratelimit-reset": "40" }), 200, 0);
    expect(rate.pollWait(0)).toBe(40_000);
    // A window that has ended leaves nothing to wait for.
    expect(rate.pollWait(41_000)).toBe(0);
  });

  it("ignores absent and unreadable headers", () => {
    const rate = new RateLimit();
    rate.observe(headers({ "x-ratelimit-remaining": "many" }), 200, 0);
    expect(rate.current()).toEqual({});
    expect(rate.pollWait(0)).toBe(0);
  });

  it("tells its listeners", () => {
    const rate = new RateLimit();
    let told = 0;
    const stop = rate.subscribe(() => told++);
    rate.observe(headers({ "x-ratelimit-remaining": "3" }), 200, 0);
    stop();
    rate.observe(headers({ "x-ratelimit-remaining": "2" }), 200, 0);
    expect(told).toBe(1);
  });
});

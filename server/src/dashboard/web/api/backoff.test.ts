import { describe, expect, it } from "vitest";
import { longestPollMs, pollDelay, pollsWithin } from "./backoff";

describe("pollDelay", () => {
  it("doubles from one second up to the longest wait", () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((n) => pollDelay(n))).toEqual([1_000, 2_000, 4_000, 8_000, longestPollMs, longestPollMs, longestPollMs]);
  });

  it("waits as long as the rate limit asks when that is longer", () => {
    expect(pollDelay(0, 25_000)).toBe(25_000);
    expect(pollDelay(3, 500)).toBe(8_000);
  });

  it("spends few calls a minute however long a poll goes on", () => {
    // 1 + 2 + 4 + 8 + 15 + 15 + 15 = 60 s: seven calls in the first minute, four a minute after.
    expect(pollsWithin(60_000)).toBe(7);
    expect(pollsWithin(120_000) - pollsWithin(60_000)).toBe(4);
  });
});

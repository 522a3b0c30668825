// Unit test of the request time as the logs' COPY lines write it.
import { describe, expect, it } from "vitest";
import { isoTime } from "./logWriter";

describe("isoTime", () => {
  it("writes what Date's toISOString writes, across milliseconds, seconds and days", () => {
    const start = Date.UTC(2026, 10, 23, 23, 59, 58, 990);
    const samples = [0, 1, 9, 10, 99, 100, 999, 1_000, 1_009, 1_010, 1_999, 2_000, 86_400_000 + 7];
    for (let ms = start - 1_500; ms < start + 2_500; ms += 7) samples.push(ms - start);
    for (const offset of samples) {
      const ms = start + offset;
      expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
    }
    // Going back to an earlier second works too.
    expect(isoTime(start)).toBe(new Date(start).toISOString());
  });
});

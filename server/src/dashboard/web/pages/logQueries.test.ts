import { describe, expect, it } from "vitest";
import { bucketsSql, fillBuckets, logRanges, logsPath, perBucket, recentRequestsSql } from "./logQueries";

const hour = logRanges.find((r) => r.id === "1h")!;
const day = logRanges.find((r) => r.id === "24h")!;
const now = Date.parse("2026-03-01T12:30:20Z");

describe("fillBuckets", () => {
  it("has every minute of the range, with the counts found", () => {
    const buckets = fillBuckets([{ bucket: "2026-03-01T12:29:00Z", requests: 4, errors: 1 }], hour, now);
    expect(buckets).toHaveLength(61);
    expect(buckets[0]!.start).toBe(Date.parse("2026-03-01T11:30:00Z"));
    expect(buckets[buckets.length - 1]!.start).toBe(Date.parse("2026-03-01T12:30:00Z"));
    expect(buckets.find((b) => b.requests > 0)).toEqual({ start: Date.parse("2026-03-01T12:29:00Z"), requests: 4, errors: 1 });
    expect(buckets.reduce((n, b) => n + b.requests, 0)).toBe(4);
  });

  it("keeps a day within the 1000 rows a logs query answers", () => {
    const buckets = fillBuckets([], day, now);
    expect(buckets.length).toBeLessThanOrEqual(1000);
    expect(buckets[1]!.start - buckets[0]!.start).toBe(5 * 60_000);
    expect(perBucket(day)).toBe("per 5 minutes");
    expect(perBucket(hour)).toBe("per minute");
    for (const range of logRanges) expect(range.minutes / range.bucketMinutes).toBeLessThan(1000);
  });
});

describe("the queries", () => {
  it("filter by API with fixed words only", () => {
    expect(recentRequestsSql("all")).not.toContain("where");
    expect(recentRequestsSql("graphql")).toContain("where metadata->>'api' = 'graphql'");
    expect(bucketsSql(day, "management")).toContain("date_bin('5 minutes'");
    expect(bucketsSql(day, "management")).toContain("where metadata->>'api' = 'management'");
  });

  it("name the range in the call", () => {
    const path = logsPath("abc", "select 1", hour, now);
    const url = new URL(path, "http://x");
    expect(url.pathname).toBe("/v1/projects/abc/analytics/endpoints/logs.all");
    expect(url.searchParams.get("sql")).toBe("select 1");
    expect(url.searchParams.get("iso_timestamp_start")).toBe("2026-03-01T11:30:20.000Z");
    expect(url.searchParams.get("iso_timestamp_end")).toBe("2026-03-01T12:30:20.000Z");
  });
});

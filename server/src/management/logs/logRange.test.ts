import { describe, expect, it } from "vitest";
import { logRange } from "./logRange";

const now = Date.parse("2026-03-01T12:30:40Z");

describe("logRange", () => {
  it("reads the last minute by default, widened to whole minutes", () => {
    expect(logRange(undefined, undefined, now)).toEqual({
      kind: "range",
      starts: new Date("2026-03-01T12:29:00Z"),
      ends: new Date("2026-03-01T12:31:00Z"),
    });
  });

  it("keeps an end on a minute boundary inside the range", () => {
    const r = logRange("2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z", now);
    expect(r).toEqual({ kind: "range", starts: new Date("2026-03-01T10:00:00Z"), ends: new Date("2026-03-01T11:01:00Z") });
  });

  it("accepts exactly 24 hours and refuses more", () => {
    expect(logRange("2026-02-28T12:00:00Z", "2026-03-01T12:00:00Z", now).kind).toBe("range");
    const r = logRange("2026-02-28T11:00:00Z", "2026-03-01T12:00:00Z", now);
    expect(r).toEqual({ kind: "refused", message: "The range between iso_timestamp_start and iso_timestamp_end must not exceed 24 hours" });
  });

  it("refuses unreadable timestamps and an end before the start", () => {
    expect(logRange("yesterday", undefined, now)).toEqual({ kind: "refused", message: 'iso_timestamp_start is not an ISO 8601 timestamp: "yesterday"' });
    expect(logRange("2026-03-01T12:00:00Z", "2026-03-01T11:00:00Z", now).kind).toBe("refused");
  });

  it("reads from a start alone up to now", () => {
    expect(logRange("2026-03-01T12:00:10Z", undefined, now)).toEqual({
      kind: "range",
      starts: new Date("2026-03-01T12:00:00Z"),
      ends: new Date("2026-03-01T12:31:00Z"),
    });
  });
});

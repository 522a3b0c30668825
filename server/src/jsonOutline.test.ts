// Unit tests of the JSON outline: nesting depth and exact member texts.
import { describe, expect, it } from "vitest";
import { outlineJson } from "./jsonOutline";

describe("outlineJson", () => {
  it("keeps each member's text as written, digits and escapes included", () => {
    const text = '{ "query" : "{ a }", "variables": {"n": 9007199254740993, "f": 1.2345678901234567890123456789012345678901, "s": "\\"}[,"} ,"x":[1,{"y":2}]}';
    const { members, depth } = outlineJson(text);
    expect(members.get("query")).toBe('"{ a }"');
    expect(members.get("variables")).toBe('{"n": 9007199254740993, "f": 1.2345678901234567890123456789012345678901, "s": "\\"}[,"}');
    expect(members.get("x")).toBe('[1,{"y":2}]');
    expect(depth).toBe(3);
  });

  it("keeps the last of repeated keys, as JSON.parse does", () => {
    expect(outlineJson('{"a": 1, "a": [2]}').members.get("a")).toBe("[2]");
  });

  it("measures deep nesting without recursion", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    expect(outlineJson(deep)).toEqual({ depth: 100_000, members: new Map() });
    expect(outlineJson("12").depth).toBe(0);
  });
});

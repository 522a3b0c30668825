import { describe, expect, it } from "vitest";
import { keyItemText, parseKeyArray } from "./parseKeyArray";

describe("parseKeyArray", () => {
  it("keeps numbers exactly as written, past 2^53 too", () => {
    const items = parseKeyArray('["public", "t", 9007199254740993, -1.50, "x\\"]", true, null, {"a": [1]}]');
    expect(items?.map(keyItemText)).toEqual(["public", "t", "9007199254740993", "-1.50", 'x"]', "true", null, '{"a":[1]}']);
  });

  it("writes numbers inside object items back as JSON numbers", () => {
    const items = parseKeyArray('[{"a": [1.50, 2]}, [3]]');
    expect(items?.map(keyItemText)).toEqual(['{"a":[1.5,2]}', "[3]"]);
  });

  it("rejects what is not a JSON array", () => {
    expect(parseKeyArray("{}")).toBeNull();
    expect(parseKeyArray("[1,")).toBeNull();
    expect(parseKeyArray('"x"')).toBeNull();
  });
});

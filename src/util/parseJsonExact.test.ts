import { describe, expect, it } from "vitest";
import { parseJsonExact } from "./parseJsonExact";

describe("parseJsonExact", () => {
  it("keeps every digit of integers past 2^53 as BigInt", () => {
    expect(parseJsonExact('{"a": 9007199254740993, "b": [-92233720368547758070, 1, 2.5]}')).toEqual({
      a: 9007199254740993n,
      b: [-92233720368547758070n, 1, 2.5],
    });
  });

  it("leaves safe integers, fractions and exponents as numbers", () => {
    expect(parseJsonExact('[9007199254740991, 1234567890123456.5, 12345678901234567e2]')).toEqual([
      9007199254740991, 1234567890123456.5, 12345678901234567e2,
    ]);
  });

  it("reads what JSON.parse reads the same way when a long digit run is present", () => {
    const text = '{"s": "x\\u00e9\\"y 12345678901234567", "t": true, "f": false, "n": null, "o": {}, "e": [], "__proto__": 1}';
    expect(parseJsonExact(text)).toEqual(JSON.parse(text));
    expect(Object.keys(parseJsonExact(text) as object)).toEqual(["s", "t", "f", "n", "o", "e", "__proto__"]);
  });

  it("rejects malformed text", () => {
    expect(() => parseJsonExact('{"a": 12345678901234567,}')).toThrow(SyntaxError);
    expect(() => parseJsonExact("[12345678901234567] x")).toThrow(SyntaxError);
  });

  it("gives every number, at any depth, to the number reader as written", () => {
    const seen: string[] = [];
    const value = parseJsonExact('[1, -1.50, {"a": [2e3, 9007199254740993]}]', (text) => (seen.push(text), `#${text}`));
    expect(value).toEqual(["#1", "#-1.50", { a: ["#2e3", "#9007199254740993"] }]);
    expect(seen).toEqual(["1", "-1.50", "2e3", "9007199254740993"]);
    expect(() => parseJsonExact("[1,]", (text) => text)).toThrow(new SyntaxError("Unexpected token in JSON at position 3"));
  });
});

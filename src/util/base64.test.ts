import { describe, expect, it } from "vitest";
import { decodeBase64, encodeBase64 } from "./base64";

describe("base64", () => {
  it("matches Node's encoder on ASCII, multi-byte and astral text", () => {
    for (const text of ["", "a", "ab", "abc", '["public","account",1]', "héllo wörld", "日本語", "😀 emoji", "x".repeat(1000)]) {
      const expected = Buffer.from(text, "utf8").toString("base64");
      expect(encodeBase64(text)).toBe(expected);
      expect(decodeBase64(expected)).toBe(text);
    }
  });

  it("answers null for input that is not base64 or not UTF-8", () => {
    expect(decodeBase64("not base64!")).toBeNull();
    expect(decodeBase64("a")).toBeNull();
    expect(decodeBase64(Buffer.from([0xff, 0xfe]).toString("base64"))).toBeNull();
    expect(decodeBase64(Buffer.from([0xe6, 0x97]).toString("base64"))).toBeNull();
  });
});

// Unit tests of request decoding: bodies and query strings to payloads, and operation kinds.
import { describe, expect, it } from "vitest";
import { payloadFromBody, payloadFromSearch } from "./payload";

const depth = 8;

describe("payloadFromBody", () => {
  it("accepts a query with absent, null or object variables, kept as the text sent", () => {
    expect(payloadFromBody('{"query": "{ a }"}', depth)).toEqual({
      kind: "ok",
      payload: { query: "{ a }", variables: null, operationName: null },
    });
    expect(payloadFromBody('{"query": "{ a }", "variables": null}', depth)).toMatchObject({ payload: { variables: null } });
    const text = '{"query": "{ a }", "variables": {"x": 9007199254740993, "f": 0.1000000000000000000000000000000000000001}, "operationName": "Q"}';
    expect(payloadFromBody(text, depth)).toEqual({
      kind: "ok",
      payload: { query: "{ a }", variables: '{"x": 9007199254740993, "f": 0.1000000000000000000000000000000000000001}', operationName: "Q" },
    });
  });

  it("names what is wrong with a malformed body", () => {
    const malformed = (text: string, message: RegExp) =>
      expect(payloadFromBody(text, depth)).toEqual({ kind: "malformed", message: expect.stringMatching(message) });
    malformed("null", /must be a JSON object/);
    malformed('{"query": ', /not valid JSON/);
    malformed('{"variables": {}}', /"query" string/);
    malformed('{"query": "{ a }", "variables": "x"}', /"variables" must be a JSON object/);
    malformed('{"query": "{ a }", "operationName": 1}', /"operationName" must be a string/);
  });

  it("refuses variables nested past the limit, however deep", () => {
    const nested = (levels: number) => `{"query": "{ a }", "variables": ${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}}`;
    expect(payloadFromBody(nested(depth), depth).kind).toBe("ok");
    expect(payloadFromBody(nested(3000), depth)).toEqual({
      kind: "malformed",
      message: `"variables" nest 3000 levels deep; at most ${depth} are accepted`,
    });
  });
});

describe("payloadFromSearch", () => {
  it("keeps the JSON variables of the query string as written", () => {
    expect(payloadFromSearch({ query: "{ a }", variables: ' {"n": 12345678901234567890} ' }, depth)).toEqual({
      kind: "ok",
      payload: { query: "{ a }", variables: '{"n": 12345678901234567890}', operationName: null },
    });
  });

  it("refuses repeated parameters, undecodable and too deep variables", () => {
    expect(payloadFromSearch({ query: ["{ a }", "{ b }"] }, depth)).toMatchObject({ message: /given once/ });
    expect(payloadFromSearch({ query: "{ a }", variables: "{" }, depth)).toMatchObject({ message: /not valid JSON/ });
    expect(payloadFromSearch({ query: "{ a }", variables: "[".repeat(9) + "]".repeat(9) }, depth)).toMatchObject({ message: /JSON object/ });
    expect(payloadFromSearch({ query: "{ a }", variables: '{"a":'.repeat(9) + "1" + "}".repeat(9) }, depth)).toMatchObject({ message: /nest 9 levels/ });
  });
});

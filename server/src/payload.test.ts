// Unit tests of request decoding: bodies and query strings to payloads, and operation kinds.
import { describe, expect, it } from "vitest";
import { operationType, payloadFromBody, payloadFromSearch } from "./payload";

describe("payloadFromBody", () => {
  it("accepts a query with absent, null or object variables", () => {
    expect(payloadFromBody({ query: "{ a }" })).toEqual({
      kind: "ok",
      payload: { query: "{ a }", variables: null, operationName: null },
    });
    expect(payloadFromBody({ query: "{ a }", variables: { x: 1 }, operationName: "Q" })).toEqual({
      kind: "ok",
      payload: { query: "{ a }", variables: { x: 1 }, operationName: "Q" },
    });
  });

  it("names what is wrong with a malformed body", () => {
    expect(payloadFromBody(null)).toMatchObject({ kind: "malformed", message: expect.stringMatching(/object/) });
    expect(payloadFromBody({ variables: {} })).toMatchObject({ kind: "malformed", message: expect.stringMatching(/query/) });
    expect(payloadFromBody({ query: "{ a }", variables: "x" })).toMatchObject({ message: expect.stringMatching(/variables/) });
  });
});

describe("payloadFromSearch", () => {
  it("decodes JSON variables from the query string", () => {
    expect(payloadFromSearch({ query: "{ a }", variables: '{"n": 2}' })).toEqual({
      kind: "ok",
      payload: { query: "{ a }", variables: { n: 2 }, operationName: null },
    });
  });

  it("refuses repeated parameters and undecodable variables", () => {
    expect(payloadFromSearch({ query: ["{ a }", "{ b }"] }).kind).toBe("malformed");
    expect(payloadFromSearch({ query: "{ a }", variables: "{" }).kind).toBe("malformed");
  });
});

describe("operationType", () => {
  const payload = (query: string, operationName: string | null = null) => ({ query, variables: null, operationName });

  it("finds the selected operation's kind", () => {
    expect(operationType(payload("{ a }"))).toBe("query");
    expect(operationType(payload("query A { a } mutation B { b }", "B"))).toBe("mutation");
  });

  it("leaves unparsable or ambiguous documents to the resolver", () => {
    expect(operationType(payload("{ a"))).toBeUndefined();
    expect(operationType(payload("query A { a } mutation B { b }"))).toBeUndefined();
  });
});

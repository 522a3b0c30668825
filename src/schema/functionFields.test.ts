// Pure tests of the schema stage's function defaults: SQL default text → GraphQL default value text.
import { describe, expect, it } from "vitest";
import { graphqlDefaultOf } from "./functionFields";

describe("function default values as GraphQL text", () => {
  it("prints literals and leaves expressions out", () => {
    expect(graphqlDefaultOf("1")).toBe("1");
    expect(graphqlDefaultOf("3.14")).toBe("3.14");
    expect(graphqlDefaultOf("false")).toBe("false");
    expect(graphqlDefaultOf("'hello'::text")).toBe('"hello"');
    expect(graphqlDefaultOf("'it''s'::text")).toBe('"it\'s"');
    expect(graphqlDefaultOf("uid()")).toBeNull();
    expect(graphqlDefaultOf("NULL::integer")).toBeNull();
  });
});

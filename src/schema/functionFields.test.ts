// Pure tests of the schema stage's function defaults: SQL default text → GraphQL default value text.
import { describe, expect, it } from "vitest";
import { defaultValueText } from "./functionFields";

describe("function default values as GraphQL text", () => {
  it("prints literals and leaves expressions out", () => {
    expect(defaultValueText("1")).toBe("1");
    expect(defaultValueText("3.14")).toBe("3.14");
    expect(defaultValueText("false")).toBe("false");
    expect(defaultValueText("'hello'::text")).toBe('"hello"');
    expect(defaultValueText("'it''s'::text")).toBe('"it\'s"');
    expect(defaultValueText("uid()")).toBeNull();
    expect(defaultValueText("NULL::integer")).toBeNull();
  });
});

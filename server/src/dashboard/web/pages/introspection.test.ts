import { describe, expect, it } from "vitest";
import { introspectionState, introspectionStatement, quoteIdent } from "./introspection";

describe("introspectionState", () => {
  it("is off without a directive saying so", () => {
    expect(introspectionState(null)).toEqual({ kind: "off" });
    expect(introspectionState("standard public schema")).toEqual({ kind: "off" });
    expect(introspectionState('@graphql({"inflect_names": true})')).toEqual({ kind: "off" });
    expect(introspectionState('@graphql({"introspection": false})')).toEqual({ kind: "off" });
  });

  it("is on when the directive says so", () => {
    expect(introspectionState('@graphql({"introspection": true})')).toEqual({ kind: "on" });
  });

  it("reports a directive it cannot read", () => {
    expect(introspectionState("@graphql({introspection: true})")).toMatchObject({ kind: "unreadable" });
  });
});

describe("introspectionStatement", () => {
  it("adds the setting and keeps the others", () => {
    expect(introspectionStatement("public", null)).toBe(`comment on schema public is '@graphql({"introspection":true})';`);
    expect(introspectionStatement("public", '@graphql({"inflect_names": true})')).toBe(
      `comment on schema public is '@graphql({"inflect_names":true,"introspection":true})';`,
    );
  });

  it("keeps the comment's words and quotes what must be quoted", () => {
    expect(introspectionStatement("My Schema", "Bob's data")).toBe(`comment on schema "My Schema" is 'Bob''s data @graphql({"introspection":true})';`);
    expect(introspectionStatement("app", 'before @graphql({"max_rows": 10}) after')).toBe(
      `comment on schema app is 'before @graphql({"max_rows":10,"introspection":true}) after';`,
    );
    expect(quoteIdent('we"ird')).toBe('"we""ird"');
  });
});

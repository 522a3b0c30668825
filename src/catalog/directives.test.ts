// Pure tests of the catalog stage's parsing: comment text and default lists → typed directives and defaults.
import { describe, expect, it } from "vitest";
import { DirectiveError, directiveJson, schemaDirectives, tableDirectives } from "./directives";
import { splitDefaults } from "./parseCatalog";

describe("comment directives", () => {
  it("reads the JSON inside @graphql(...), parentheses in strings included", () => {
    expect(directiveJson('@graphql({"name": "myField"})')).toEqual({ name: "myField" });
    expect(directiveJson('@graphql({"name": "myField with (parentheses)"})')).toEqual({
      name: "myField with (parentheses)",
    });
    expect(directiveJson('@graphql({"name": "an ending parenthesis)"})')).toEqual({ name: "an ending parenthesis)" });
    expect(directiveJson("just a comment")).toEqual({});
    expect(directiveJson(null)).toEqual({});
  });

  it("rejects malformed JSON with pg_graphql's load error text", () => {
    expect(() => directiveJson('@graphql({"name": })')).toThrow(DirectiveError);
    expect(() => directiveJson('@graphql({"name": })')).toThrow(/^Error while loading schema, check comment directives\./);
    expect(() => tableDirectives('@graphql({"primary_key_columns": "id"})')).toThrow(DirectiveError);
  });

  it("fills schema defaults", () => {
    expect(schemaDirectives(null)).toEqual({ inflectNames: false, maxRows: 30, introspection: false });
    expect(schemaDirectives('@graphql({"inflect_names": true, "max_rows": 5})')).toEqual({
      inflectNames: true,
      maxRows: 5,
      introspection: false,
    });
  });

  it("reads table directives", () => {
    expect(
      tableDirectives(
        '@graphql({"name": "X", "totalCount": {"enabled": true}, "primary_key_columns": ["id"], "foreign_keys": [{"local_name": "kids", "local_columns": ["pid"], "foreign_name": "mom", "foreign_schema": "public", "foreign_table": "p", "foreign_columns": ["id"]}]})',
      ),
    ).toEqual({
      name: "X",
      totalCount: { enabled: true },
      primaryKeyColumns: ["id"],
      foreignKeys: [
        {
          localName: "kids",
          localColumns: ["pid"],
          foreignName: "mom",
          foreignSchema: "public",
          foreignTable: "p",
          foreignColumns: ["id"],
        },
      ],
    });
  });
});

describe("function argument defaults", () => {
  it("splits pg_get_expr output at top-level commas", () => {
    expect(splitDefaults("1, 'a,b'::text, f(1, 2), 'it''s'::text")).toEqual([
      "1",
      "'a,b'::text",
      "f(1, 2)",
      "'it''s'::text",
    ]);
    expect(splitDefaults(null)).toEqual([]);
  });
});

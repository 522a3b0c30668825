import { describe, expect, it } from "vitest";
import type { CatalogDirectory } from "../catalog/directory";
import { tablesNamedBy } from "./namedTables";

const directory = (extra: Partial<CatalogDirectory> = {}): CatalogDirectory => ({
  schemas: new Map([["public", { inflectNames: true, maxRows: 30, introspection: false }]]),
  tables: [
    { oid: 1, schema: "public", name: "account", directives: {} },
    { oid: 2, schema: "public", name: "blog_post", directives: {} },
    { oid: 3, schema: "public", name: "other", directives: { name: "Renamed" } },
    { oid: 4, schema: "public", name: "account_edge", directives: {} },
    { oid: 5, schema: "public", name: "unrelated", directives: {} },
  ],
  keys: [{ localOid: 2, foreignOid: 1, localColumns: ["author_id"] }],
  enums: [],
  ...extra,
});

const named = (...names: string[]) => tablesNamedBy(directory(), new Set(names));

describe("tablesNamedBy", () => {
  it("finds tables by root field, mutation field and type name", () => {
    expect(named("insertIntoBlogPostCollection")).toEqual([2]);
    expect(named("renamedByPk", "unrelatedCollection")).toEqual([3, 5]);
    expect(named("Renamed")).toEqual([3]);
    expect(named("edges", "node", "id")).toEqual([]);
  });

  it("takes both ends of a relationship named from either side, and the tables holding the same type names", () => {
    // `AccountEdge` is both account's edge type and account_edge's own type.
    expect(named("accountCollection")).toEqual([1, 4]);
    expect(named("author")).toEqual([1, 2, 4]);
    // Also the field of account's rows that lists their blog posts.
    expect(named("blogPostCollection")).toEqual([1, 2, 4]);
  });

  it("counts the opt-in features' type names among a table's names once a feature is on", () => {
    const tables = [
      { oid: 1, schema: "public", name: "account", directives: {} },
      { oid: 6, schema: "public", name: "account_on_conflict", directives: {} },
    ];
    // Without a feature on, `AccountOnConflict` is only the second table's name.
    expect(tablesNamedBy(directory({ tables }), new Set(["AccountOnConflict"]))).toEqual([6]);
    expect(tablesNamedBy(directory({ tables }), new Set(["accountCollection"]))).toEqual([1]);
    // With one, account may want that name too, so each brings the other.
    const upsert = [{ ...tables[0]!, directives: { features: { upsert: true } } }, tables[1]!];
    expect(tablesNamedBy(directory({ tables: upsert }), new Set(["AccountOnConflict"]))).toEqual([1, 6]);
    expect(tablesNamedBy(directory({ tables: upsert }), new Set(["accountCollection"]))).toEqual([1, 6]);
  });

  it("gives up where an enum and a table want one name", () => {
    const withEnum = directory({ enums: [{ schema: "public", name: "unrelated", directives: {} }] });
    expect(tablesNamedBy(withEnum, new Set(["accountCollection"]))).toBeNull();
  });
});

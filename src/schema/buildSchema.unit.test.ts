// Pure tests of schema building: a catalog document written here → graphql-js schema.
import { describe, expect, it } from "vitest";
import { GraphQLObjectType } from "graphql";
import { parseCatalog, type RawCatalog } from "../catalog/parseCatalog";
import { buildSchema } from "./buildSchema";
import { printApiSchema } from "./printSchema";
import { resolutionOf, typeSourceOf } from "./resolution";

const allowed = { select: true, insert: true, update: true };
const readOnly = { select: true, insert: false, update: false };

function column(attnum: number, name: string, typeOid: number, notNull = false, privileges = allowed) {
  return {
    attnum,
    name,
    typeOid,
    maxLength: null,
    notNull,
    hasDefault: false,
    isGenerated: false,
    isSerial: false,
    comment: null,
    ...privileges,
  };
}

function fixture(schemaComment: string | null): RawCatalog {
  return {
    role: "postgres",
    schemas: [{ oid: 2200, name: "public", comment: schemaComment }],
    tables: [
      {
        oid: 100,
        schema: "public",
        name: "author",
        relkind: "r",
        isPartition: false,
        rlsEnabled: false,
        comment: null,
        privileges: { select: true, insert: true, update: true, delete: true },
        columns: [column(1, "id", 23, true), column(2, "full_name", 25), column(3, "mood", 900)],
        indexes: [{ isPrimary: true, isPartial: false, columns: ["id"], hasExpression: false }],
        foreignKeys: [],
      },
      {
        oid: 101,
        schema: "public",
        name: "book",
        relkind: "r",
        isPartition: false,
        rlsEnabled: false,
        comment: '@graphql({"totalCount": {"enabled": true}, "aggregate": {"enabled": true}})',
        privileges: { select: true, insert: false, update: false, delete: false },
        columns: [
          column(1, "id", 20, true, readOnly),
          column(2, "author_id", 23, true, readOnly),
          column(3, "price", 1700, false, readOnly),
        ],
        indexes: [{ isPrimary: true, isPartial: false, columns: ["id"], hasExpression: false }],
        foreignKeys: [
          { name: "book_author_id_fkey", foreignTableOid: 100, localColumns: ["author_id"], foreignColumns: ["id"], comment: null },
        ],
      },
    ],
    types: [
      {
        oid: 900,
        schema: "public",
        name: "mood",
        typtype: "e",
        category: "E",
        elementOid: 0,
        baseOid: 0,
        relationOid: 0,
        usage: true,
        onSearchPath: true,
        comment: null,
        enumValues: ["happy", "sad"],
      },
    ],
    functions: [],
  };
}

describe("buildSchema (pure)", () => {
  it("builds node, connection, filter and mutation types with inflection", () => {
    const api = buildSchema(parseCatalog(fixture('@graphql({"inflect_names": true})')));
    const sdl = printApiSchema(api);
    expect(sdl).toContain("type Author implements Node");
    expect(sdl).toContain("enum Mood");
    const author = api.graphql.getType("Author") as GraphQLObjectType;
    expect(Object.keys(author.getFields())).toEqual(["nodeId", "id", "fullName", "mood", "bookCollection"]);
    const book = api.graphql.getType("Book") as GraphQLObjectType;
    expect(String(book.getFields()["author"]!.type)).toBe("Author!");
    expect(String(book.getFields()["id"]!.type)).toBe("BigInt!");
    const connection = api.graphql.getType("BookConnection") as GraphQLObjectType;
    expect(Object.keys(connection.getFields())).toEqual(["edges", "pageInfo", "totalCount", "aggregate"]);
    const sum = api.graphql.getType("BookSumAggregateResult") as GraphQLObjectType;
    expect(Object.entries(sum.getFields()).map(([k, f]) => `${k}: ${String(f.type)}`)).toEqual([
      "id: BigInt",
      "authorId: BigInt",
      "price: BigFloat",
    ]);
    const avg = api.graphql.getType("BookAvgAggregateResult") as GraphQLObjectType;
    expect(String(avg.getFields()["authorId"]!.type)).toBe("BigFloat");
    // Only the author table may change.
    expect(Object.keys(api.graphql.getMutationType()!.getFields())).toEqual([
      "deleteFromAuthorCollection",
      "insertIntoAuthorCollection",
      "updateAuthorCollection",
    ]);
    expect(typeSourceOf(api.graphql.getType("Mood")!)).toEqual({
      kind: "enum",
      typeOid: 900,
      values: { happy: "happy", sad: "sad" },
    });
    expect(resolutionOf(api.graphql.getQueryType()!.getFields()["bookCollection"]!)?.kind).toBe("connection");
  });

  it("keeps database names without inflection", () => {
    const api = buildSchema(parseCatalog(fixture(null)));
    const author = api.graphql.getType("author") as GraphQLObjectType;
    expect(Object.keys(author.getFields())).toContain("full_name");
    const authors = api.graphql.getQueryType()!.getFields()["authorCollection"]!;
    expect(String(authors.type)).toBe("authorConnection!");
    expect(authors.args.map((a) => `${a.name}: ${String(a.type)}`)).toEqual([
      "first: Int",
      "last: Int",
      "before: Cursor",
      "after: Cursor",
      "offset: Int",
      "filter: authorFilter",
      "orderBy: [authorOrderBy!]",
    ]);
    expect(api.introspection).toBeNull();
  });

  it("reports a malformed directive as a load error", () => {
    const raw = fixture(null);
    raw.tables[0]!.comment = '@graphql({"name": "X",})';
    const api = buildSchema(parseCatalog(raw));
    expect(api.loadError).toMatch(/^Error while loading schema, check comment directives\./);
  });
});

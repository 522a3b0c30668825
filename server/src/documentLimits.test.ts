// Unit tests of document limits: sizes, depths and field counts, fragments measured once.
import { describe, expect, it } from "vitest";
import { checkDocument } from "./documentLimits";

const limits = { maxDocumentLength: 10_000, maxDepth: 5, maxFields: 50, maxVariablesDepth: 10 };
const check = (query: string, operationName: string | null = null) =>
  checkDocument({ query, variables: null, operationName }, limits);

/** Fragments F0..Fn, each selecting the previous one through `spreads`. */
function chain(levels: number, spreads: (previous: string) => string): string {
  const fragments = ["fragment F0 on Query { __typename }"];
  for (let i = 1; i <= levels; i++) fragments.push(`fragment F${i} on Query { ${spreads(`F${i - 1}`)} }`);
  return `{ ...F${levels} } ${fragments.join(" ")}`;
}

describe("checkDocument", () => {
  it("finds the selected operation's kind", () => {
    expect(check("{ a }")).toEqual({ kind: "accepted", operation: "query" });
    expect(check("query A { a } mutation B { b }", "B")).toEqual({ kind: "accepted", operation: "mutation" });
  });

  it("gives a repeated document the verdict of its own limits and operation name", () => {
    const query = "query A { a { b { c } } } mutation B { b }";
    expect(check(query, "A")).toEqual({ kind: "accepted", operation: "query" });
    expect(check(query, "A")).toEqual({ kind: "accepted", operation: "query" });
    expect(check(query, "")).toEqual({ kind: "accepted", operation: undefined });
    expect(checkDocument({ query, variables: null, operationName: "A" }, { ...limits, maxDepth: 2 })).toEqual({
      kind: "refused",
      message: "The query nests 3 levels deep; at most 2 are accepted",
    });
  });

  it("leaves unparsable or ambiguous documents to the resolver", () => {
    expect(check("{ a")).toEqual({ kind: "accepted", operation: undefined });
    expect(check("query A { a } mutation B { b }")).toEqual({ kind: "accepted", operation: undefined });
  });

  it("refuses long, deep and wide documents, saying which limit and by how much", () => {
    expect(check(`{ a${" ".repeat(10_000)} }`)).toEqual({
      kind: "refused",
      message: "The document is 10005 characters long; at most 10000 are accepted",
    });
    expect(check("{ a { b { c { d { e { f } } } } } }")).toEqual({
      kind: "refused",
      message: "The query nests 6 levels deep; at most 5 are accepted",
    });
    const aliases = Array.from({ length: 51 }, (_, i) => `a${i}: a`).join(" ");
    expect(check(`{ ${aliases} }`)).toEqual({
      kind: "refused",
      message: "The query selects 51 fields (aliases included); at most 50 are accepted",
    });
  });

  it("counts a fragment spread twice in one selection set once, as CollectFields visits it", () => {
    expect(check(chain(30, (f) => `...${f} ...${f}`))).toEqual({ kind: "accepted", operation: "query" });
  });

  it("counts fragments under different fields each time, without expanding them", () => {
    expect(check(chain(30, (f) => `a: __typename ...${f}`))).toEqual({ kind: "accepted", operation: "query" });
    // 2^60 fields once expanded; measured in 60 steps.
    const doubling = chain(60, (f) => `x: node { ...${f} } y: node { ...${f} }`);
    expect(check(doubling)).toMatchObject({ kind: "refused", message: expect.stringMatching(/^The query nests 61 levels deep/) });
    const deepAllowed = { ...limits, maxDepth: 100 };
    expect(checkDocument({ query: doubling, variables: null, operationName: null }, deepAllowed)).toMatchObject({
      kind: "refused",
      message: expect.stringMatching(/^The query selects \d{19} fields \(aliases included\)/),
    });
  });

  it("refuses a document nested past the parser's stack", () => {
    const deep = "{ a ".repeat(20_000) + "}".repeat(20_000);
    expect(checkDocument({ query: deep, variables: null, operationName: null }, { ...limits, maxDocumentLength: 1e6 })).toEqual({
      kind: "refused",
      message: "The document nests more than 5 levels deep",
    });
  });
});

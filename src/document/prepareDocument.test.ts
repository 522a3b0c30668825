import { describe, expect, it } from "vitest";
import { collectFields } from "./collectFields";
import { VariableScope } from "./inputValue";
import { prepareDocument, type PreparedDocument } from "./prepareDocument";
import { UserError } from "./UserError";

function ok(query: string, operationName: string | null = null): PreparedDocument {
  const d = prepareDocument(query, operationName);
  if (d.kind !== "ok") throw new Error(d.message);
  return d;
}

describe("prepareDocument", () => {
  it("selects the only operation, or the named one", () => {
    expect(ok("{ a }").operation.selectionSet.selections).toHaveLength(1);
    expect(ok("query A { a } query B { b }", "B").operation.name?.value).toBe("B");
  });

  it("answers pg_graphql's texts for document errors", () => {
    expect(prepareDocument("query A { a } query A { b }", "A")).toEqual({ kind: "error", message: "Operation names must be unique" });
    expect(prepareDocument("query A { a } query B { b }", null)).toEqual({ kind: "error", message: "Operation not found" });
    expect(prepareDocument("subscription { a }", null)).toEqual({ kind: "error", message: "Subscriptions are not supported" });
    expect(prepareDocument("{ ...A } fragment A on Q { ...B } fragment B on Q { ...A }", null)).toEqual({
      kind: "error",
      message: "Found a cycle between fragments",
    });
    expect(prepareDocument("{ { {", null).kind).toBe("error");
  });
});

describe("collectFields", () => {
  const collect = (query: string, variables: Record<string, unknown> = {}) => {
    const d = ok(query);
    return collectFields([d.operation.selectionSet], () => true, {
      fragments: d.fragments,
      scope: new VariableScope(d.operation, variables),
    });
  };

  it("merges repeated fields and inlines fragments", () => {
    const fields = collect("{ a { x } ...F a { y } } fragment F on Query { b }");
    expect(fields.map((f) => f.responseKey)).toEqual(["a", "b"]);
    expect(fields[0]!.selectionSets).toHaveLength(2);
  });

  it("applies @skip and @include, with defaults", () => {
    const q = "query Q($s: Boolean = true) { a @skip(if: $s) b @include(if: false) c }";
    expect(collect(q).map((f) => f.name)).toEqual(["c"]);
    expect(collect(q, { s: false }).map((f) => f.name)).toEqual(["a", "c"]);
    expect(() => collect("query Q($s: Boolean!) { a @skip(if: $s) }")).toThrow('Value for "if" in @skip directive is required');
  });

  it("rejects conflicting merges with pg_graphql's texts", () => {
    expect(() => collect("{ a: b a }")).toThrow("Fields `a` and `b` are different");
    try {
      collect("{ a(first: 1) a }");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UserError);
      expect((e as UserError).message).toBe("Two fields named `a` have different arguments");
      expect((e as UserError).omitData).toBe(true);
    }
  });
});

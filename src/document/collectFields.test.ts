import { describe, expect, it } from "vitest";
import { collectFields, type CollectContext } from "./collectFields";
import { VariableScope } from "./inputValue";
import { prepareDocument, type PreparedDocument } from "./prepareDocument";

function prepared(query: string): PreparedDocument {
  const doc = prepareDocument(query, null);
  if (doc.kind === "error") throw new Error(doc.message);
  return doc;
}

function context(doc: PreparedDocument, variables: Record<string, unknown> = {}): CollectContext & { visited: { fields: number } } {
  return { fragments: doc.fragments, scope: new VariableScope(doc.operation, variables), visited: { fields: 0 } };
}

/** Fragments F0 … F{levels-1}, each selecting `id` and `a { x }` and spreading the next one twice. */
function nestedFragments(levels: number): string {
  const parts = ["query { ...F0 }"];
  for (let i = 0; i < levels; i++) {
    const next = i + 1 < levels ? ` ...F${i + 1} ...F${i + 1}` : "";
    parts.push(`fragment F${i} on Query { id a { x${i}: x }${next} }`);
  }
  return parts.join("\n");
}

describe("collectFields", () => {
  it("visits each fragment once per selection set: 30 levels of doubled spreads cost 60 field visits", () => {
    const doc = prepared(nestedFragments(30));
    const ctx = context(doc);
    const fields = collectFields([doc.operation.selectionSet], (t) => t === "Query", ctx);
    expect(fields.map((f) => f.responseKey)).toEqual(["id", "a"]);
    // Two fields per fragment, 30 fragments; spread without the once-only rule it would be 2^31 - 2.
    expect(ctx.visited.fields).toBe(60);
    const a = fields[1]!;
    expect(a.selectionSets).toHaveLength(30);
    const sub = collectFields(a.selectionSets, (t) => t === "A", ctx);
    expect(sub.map((f) => f.responseKey)).toEqual(Array.from({ length: 30 }, (_, i) => `x${i}`));
    expect(ctx.visited.fields).toBe(90);
  });

  it("merges repeated fields in first-seen order and keeps every sub-selection", () => {
    const doc = prepared("{ b: x { p } a { q } b: x { r } ... on Query { a { s } } ... on Other { c } }");
    const fields = collectFields([doc.operation.selectionSet], (t) => t === "Query", context(doc));
    expect(fields.map((f) => [f.responseKey, f.name, f.selectionSets.length])).toEqual([
      ["b", "x", 2],
      ["a", "a", 2],
    ]);
  });

  it("applies @skip and @include with literal and variable conditions", () => {
    const doc = prepared("query ($no: Boolean!) { a @skip(if: true) b @include(if: $no) c @include(if: true) d @skip(if: $no) }");
    const fields = collectFields([doc.operation.selectionSet], () => true, context(doc, { no: false }));
    expect(fields.map((f) => f.responseKey)).toEqual(["c", "d"]);
  });

  it("refuses a directive without a boolean condition, an unknown fragment and conflicting fields", () => {
    const collect = (query: string) => {
      const doc = prepared(query);
      return () => collectFields([doc.operation.selectionSet], () => true, context(doc));
    };
    expect(collect("query ($v: Boolean) { a @skip(if: $v) }")).toThrow('Value for "if" in @skip directive is required');
    expect(collect("{ ...Missing }")).toThrow("Unknown fragment Missing");
    expect(collect("{ a: x a: y }")).toThrow("Fields `y` and `x` are different");
    expect(collect("{ x(n: 1) x(n: 2) }")).toThrow("Two fields named `x` have different arguments");
  });
});

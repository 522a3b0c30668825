import { describe, expect, it } from "vitest";
import { planShape } from "./planShape";
import type { OperationPlan } from "./types";

const shapeOf = (tree: unknown) => planShape(tree as OperationPlan);
const param = (value: unknown, type = { name: "text", schema: "pg_catalog" }) => ({ kind: "param", value, type });

describe("planShape", () => {
  it("is the same for trees that differ only in their parameters' values, and lists those in walk order", () => {
    const a = shapeOf({ kind: "op", fields: [{ key: "x", limit: param(1), where: [param("a"), param(null)] }] });
    const b = shapeOf({ kind: "op", fields: [{ key: "x", limit: param(2), where: [param("b"), param("c")] }] });
    expect(a.shape).toBe(b.shape);
    expect(a.params.map((p) => p.value)).toEqual([1, "a", null]);
    expect(b.params.map((p) => p.value)).toEqual([2, "b", "c"]);
  });

  it("tells apart a parameter's type, and any value that is not a parameter", () => {
    const base = shapeOf({ v: param(1) }).shape;
    expect(shapeOf({ v: param(1, { name: "int4", schema: "pg_catalog" }) }).shape).not.toBe(base);
    const distinct = [
      { a: "x", b: "y" },
      { a: 'x", b="y' },
      { a: "x=s1:y" },
      { a: "1", b: "y" },
      { a: 1, b: "y" },
      { a: true, b: "y" },
      { a: null, b: "y" },
      { a: undefined, b: "y" },
      { a: ["x"], b: "y" },
      { a: { b: "y" } },
      { b: "y", a: "x" },
    ].map((t) => shapeOf(t).shape);
    expect(new Set(distinct).size).toBe(distinct.length);
  });

  it("names catalog objects by identity, and reads no key of an object's prototype", () => {
    const table = (oid: number, columns: string[]) => ({ oid, name: "t", columns });
    expect(shapeOf({ table: table(5, ["a"]) }).shape).toBe(shapeOf({ table: table(5, ["a", "b"]) }).shape);
    expect(shapeOf({ table: table(5, ["a"]) }).shape).not.toBe(shapeOf({ table: table(6, ["a"]) }).shape);
    expect(shapeOf({ toString: { a: 1 } }).shape).not.toBe(shapeOf({ toString: { a: 2 } }).shape);
  });
});

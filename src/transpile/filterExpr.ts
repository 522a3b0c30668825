// Transpile stage, filters: a FilterPlan over a row → the boolean SQL expression it stands for.

import type { Table } from "../catalog/model";
import type { CompareOp, FilterPlan } from "../plan/types";
import { unreachable } from "../util/invariant";
import { and, binary, call, or, type BinaryOp, type Expr } from "../sql/ast";
import { textType, type RowRef } from "./rowRef";

export function filterExpr(f: FilterPlan, row: RowRef, table: Table): Expr {
  switch (f.kind) {
    case "and":
      return and(...f.items.map((x) => filterExpr(x, row, table)));
    case "or":
      return or(...f.items.map((x) => filterExpr(x, row, table)));
    case "not":
      return { kind: "not", expr: filterExpr(f.item, row, table) };
    case "isNull":
      return { kind: "isNull", expr: row.column(f.column), negated: f.negated };
    case "primaryKey":
      return and(...table.primaryKey.map((c, i) => binary("=", row.column(c), f.values[i]!)));
    case "compare":
      return compareExpr(f.op, row.column(f.column), f.value);
    default:
      return unreachable(f, "filter plan");
  }
}

/** Operators written as `column op value`. */
const BINARY_OPS: Record<Exclude<CompareOp, "in" | "startsWith">, BinaryOp> = {
  eq: "=",
  neq: "<>",
  lt: "<",
  lte: "<=",
  gt: ">",
  gte: ">=",
  like: "like",
  ilike: "ilike",
  regex: "~",
  iregex: "~*",
  contains: "@>",
  containedBy: "<@",
  overlaps: "&&",
};

function compareExpr(op: CompareOp, c: Expr, value: Expr): Expr {
  switch (op) {
    case "in":
      return { kind: "anyOf", expr: c, array: value };
    case "startsWith":
      return call("starts_with", { kind: "cast", expr: c, type: textType }, { kind: "cast", expr: value, type: textType });
    default:
      return binary(BINARY_OPS[op], c, value);
  }
}

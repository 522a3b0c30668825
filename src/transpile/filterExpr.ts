// Transpile stage, filters: a FilterPlan over a row → the boolean SQL expression it stands for.

import type { Table } from "../catalog/model";
import type { CompareOp, FilterPlan } from "../plan/types";
import { unreachable } from "../util/invariant";
import { and, binary, bool, call, int, or, select, type BinaryOp, type Expr } from "../sql/ast";
import { tableFrom, tableRow, textType, type AliasCounter, type RowRef } from "./rowRef";

export function filterExpr(f: FilterPlan, row: RowRef, table: Table, aliases: AliasCounter): Expr {
  switch (f.kind) {
    case "and":
      return and(...f.items.map((x) => filterExpr(x, row, table, aliases)));
    case "or":
      return or(...f.items.map((x) => filterExpr(x, row, table, aliases)));
    case "not":
      return { kind: "not", expr: filterExpr(f.item, row, table, aliases) };
    case "isNull":
      return { kind: "isNull", expr: row.column(f.column), negated: f.negated };
    case "primaryKey":
      return and(...table.primaryKey.map((c, i) => binary("=", row.column(c), f.values[i]!)));
    case "compare":
      return compareExpr(f.op, row.column(f.column), f.value);
    case "related":
      return relatedExpr(f, row, aliases);
    default:
      return unreachable(f, "filter plan");
  }
}

/**
 * A filter across a relationship: `exists` over the related rows joined on the key's columns (an
 * index on the referencing columns serves it), as the role sees them. `every` holds when no
 * related row fails the filter, a row for which it is null failing too. `offset 0` keeps each
 * `exists` a lookup per row: PostgreSQL would otherwise join it with every related row, and a
 * page's size is hidden from the planner (to keep one plan for every size), so it plans as if
 * most rows were read, scanning the related table whole where a page needs a few lookups.
 */
function relatedExpr(f: Extract<FilterPlan, { kind: "related" }>, row: RowRef, aliases: AliasCounter): Expr {
  const rel = f.relation;
  const alias = aliases.next("t");
  const ref = tableRow(alias);
  const join = rel.toColumns.map((c, i) => binary("=", ref.column(c), row.column(rel.fromColumns[i]!)));
  const inner = filterExpr(f.filter, ref, rel.to, aliases);
  const constrains = !(inner.kind === "and" && inner.items.length === 0);
  const exists = (condition: Expr | null): Expr => ({
    kind: "exists",
    select: select({
      columns: [{ expr: int(1), alias: "one" }],
      from: tableFrom(rel.to, alias),
      where: and(...join, ...(condition === null ? [] : [condition])),
      offset: int(0),
    }),
  });
  switch (f.quantifier) {
    case "toOne":
    case "some":
      return exists(constrains ? inner : null);
    case "none":
      return { kind: "not", expr: exists(constrains ? inner : null) };
    case "every":
      return constrains ? { kind: "not", expr: exists({ kind: "not", expr: call("coalesce", inner, bool(false)) }) } : bool(true);
    default:
      return unreachable(f.quantifier, "quantifier");
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

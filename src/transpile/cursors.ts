// Transpile stage, order and cursors: an order plan over a row → ORDER BY items, the cursor and
// node id expressions, and the predicate for rows past a cursor.

import type { Table } from "../catalog/model";
import type { CursorPlan, OrderPlan } from "../plan/types";
import type { Relation } from "../schema/resolution";
import { and, binary, bool, call, int, or, param, select, text, type Expr, type OrderItem } from "../sql/ast";
import { tableFrom, tableRow, textType, type RowRef } from "./rowRef";

/**
 * base64 of the text, without the line breaks PostgreSQL's encoder inserts. Node ids and cursors
 * stay jsonb arrays: jsonb writes numbers in one canonical form (float 1e20 as
 * 100000000000000000000), which the decoder and earlier cursors rely on.
 */
function base64(e: Expr): Expr {
  return call("replace", call("encode", call("convert_to", e, text("utf8")), text("base64")), call("chr", int(10)), text(""));
}

export function nodeIdExpr(table: Table, row: RowRef): Expr {
  const parts: Expr[] = [param(table.schema, textType), param(table.name, textType), ...table.primaryKey.map((c) => row.column(c))];
  return base64({ kind: "cast", expr: call("jsonb_build_array", ...parts), type: textType });
}

export function cursorExpr(order: OrderPlan[], row: RowRef): Expr {
  return base64({ kind: "cast", expr: call("jsonb_build_array", ...order.map((o) => orderValue(o, row))), type: textType });
}

export function flip(o: OrderPlan): OrderPlan {
  return { ...o, direction: o.direction === "asc" ? "desc" : "asc", nulls: o.nulls === "first" ? "last" : "first" };
}

/** What an order item sorts by: its column, or a related row's column (`via` its relationships). */
function orderKey(o: OrderPlan): string {
  if (o.via === undefined) return o.column;
  const steps = o.via.map((r) => `${r.from.oid}(${r.fromColumns.join(",")})>${r.to.oid}(${r.toColumns.join(",")})`);
  return JSON.stringify([...steps, o.column]);
}

/**
 * An order item's value on a row: its column, or a related row's column read through the to-one
 * relationships that lead to it, as the role sees them (null where a related row is missing).
 */
export function orderValue(o: OrderPlan, row: RowRef): Expr {
  const via = o.via;
  if (via === undefined) return row.column(o.column);
  const build = (r: RowRef) => relatedValue(via, o.column, r, 0);
  return row.derive ? row.derive(orderKey(o), build) : build(row);
}

/** `(select <column> from <to> where <key> = <row's key> limit 1)`, nested once per relationship. */
function relatedValue(via: readonly Relation[], column: string, row: RowRef, depth: number): Expr {
  const [rel, ...rest] = via;
  // Each level's alias is its depth: the subqueries nest, so no two in one scope share one.
  const alias = `o${depth}`;
  const ref = tableRow(alias);
  const value = rest.length === 0 ? ref.column(column) : relatedValue(rest, column, ref, depth + 1);
  const where = and(...rel!.toColumns.map((c, i) => binary("=", ref.column(c), row.column(rel!.fromColumns[i]!))));
  return { kind: "subquery", select: select({ columns: [{ expr: value, alias: "v" }], from: tableFrom(rel!.to, alias), where, limit: int(1) }) };
}

/** The order's items, each column once (the key closing an order may repeat a column). */
export function orderItems(order: OrderPlan[], row: RowRef): OrderItem[] {
  const seen = new Set<string>();
  const items: OrderItem[] = [];
  for (const o of order) {
    const key = orderKey(o);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({ expr: orderValue(o, row), direction: o.direction, nulls: o.nulls });
  }
  return items;
}

/**
 * Rows strictly after the cursor position in `order` (null-aware, lexicographic). Which cursor
 * values are null is known, so each comparison is a plain `col op $n` where it can be; a column
 * repeated in the order (the key closing an order that names it) adds nothing and is skipped.
 * A cursor with fewer values than the order compares the leading columns it has values for,
 * strictly, as pg_graphql does: rows tied with it on those columns are not after it.
 * `notNull` names the columns that cannot hold null in the rows scanned.
 */
export function afterCursor(order: OrderPlan[], cursor: CursorPlan, row: RowRef, notNull: (column: string) => boolean): Expr {
  const seen = new Set<string>();
  const equalBefore: Expr[] = [];
  const branches: Expr[] = [];
  let leading: Expr | null = null;
  order.slice(0, cursor.values.length).forEach((o, i) => {
    const key = orderKey(o);
    if (seen.has(key)) return;
    seen.add(key);
    const c = orderValue(o, row);
    // A related column may be null wherever the related row is missing.
    const notNullHere = (name: string) => o.via === undefined && notNull(name);
    const v = cursor.values[i]!;
    const isNull = (negated: boolean): Expr => ({ kind: "isNull", expr: c, negated });
    let beyond: Expr;
    let equal: Expr;
    if (cursor.nulls[i]) {
      // Nulls sort as a block at one end: past a null, only the other values (nulls first) remain.
      beyond = o.nulls === "first" ? isNull(true) : bool(false);
      equal = isNull(false);
    } else {
      const past = binary(o.direction === "asc" ? ">" : "<", c, v);
      beyond = o.nulls === "last" && !notNullHere(o.column) ? or(past, isNull(false)) : past;
      equal = binary("=", c, v);
      // Every later row is at or beyond the first value: a range the index on it can serve.
      if (i === 0 && notNullHere(o.column)) leading = binary(o.direction === "asc" ? ">=" : "<=", c, v);
    }
    branches.push(and(...equalBefore, beyond));
    equalBefore.push(equal);
  });
  const after = or(...branches);
  return leading ? and(leading, after) : after;
}

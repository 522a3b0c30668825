// Transpile stage, order and cursors: an order plan over a row → ORDER BY items, the cursor and
// node id expressions, and the predicate for rows past a cursor.

import type { Table } from "../catalog/model";
import type { CursorPlan, OrderPlan } from "../plan/types";
import { and, binary, bool, call, int, or, param, text, type Expr, type OrderItem } from "../sql/ast";
import { textType, type RowRef } from "./rowRef";

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
  return base64({ kind: "cast", expr: call("jsonb_build_array", ...order.map((o) => row.column(o.column))), type: textType });
}

export function flip(o: OrderPlan): OrderPlan {
  return { column: o.column, direction: o.direction === "asc" ? "desc" : "asc", nulls: o.nulls === "first" ? "last" : "first" };
}

/** The order's items, each column once (the key closing an order may repeat a column). */
export function orderItems(order: OrderPlan[], row: RowRef): OrderItem[] {
  const seen = new Set<string>();
  const items: OrderItem[] = [];
  for (const o of order) {
    if (seen.has(o.column)) continue;
    seen.add(o.column);
    items.push({ expr: row.column(o.column), direction: o.direction, nulls: o.nulls });
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
    if (seen.has(o.column)) return;
    seen.add(o.column);
    const c = row.column(o.column);
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
      beyond = o.nulls === "last" && !notNull(o.column) ? or(past, isNull(false)) : past;
      equal = binary("=", c, v);
      // Every later row is at or beyond the first value: a range the index on it can serve.
      if (i === 0 && notNull(o.column)) leading = binary(o.direction === "asc" ? ">=" : "<=", c, v);
    }
    branches.push(and(...equalBefore, beyond));
    equalBefore.push(equal);
  });
  const after = or(...branches);
  return leading ? and(leading, after) : after;
}

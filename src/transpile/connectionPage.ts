// Transpile stage, a connection's page: the window of rows edges and pageInfo read (after the
// cursor, offset, one row past the page when pageInfo asks) and how its rows are aggregated.

import type { ConnectionPlan } from "../plan/types";
import { invariant } from "../util/invariant";
import { and, binary, bool, call, int, jsonSubquery, or, select, type Expr, type JsonExpr, type OrderItem } from "../sql/ast";
import type { Scan } from "./connectionExpr";
import { afterCursor, flip, orderItems } from "./cursors";
import { carriedRow, tableRow, type AliasCounter, type CarriedRow, type RowRef } from "./rowRef";

export interface Page {
  conn: ConnectionPlan;
  alias: string;
  /** The page's rows as the outer expressions see them. */
  row: CarriedRow;
  /** Only pageInfo looks one row past the page; without it the page is read exactly. */
  checksBeyondPage: boolean;
  /** Whether rows carry their number (to leave out the row past the page). */
  numbered: boolean;
  /** The JSON list of an item per page row, in the connection's order. */
  list(item: JsonExpr): JsonExpr;
  /** array_agg over the page's rows, in the connection's order (null for no rows). */
  values(e: Expr): Expr;
  /** A row exists past the page. */
  hasMore: Expr;
}

export function connectionPage(conn: ConnectionPlan, aliases: AliasCounter): Page {
  const alias = aliases.next("p");
  const row = carriedRow(alias);
  const checksBeyondPage = conn.fields.some((f) => f.kind === "pageInfo");
  // A page read exactly is aggregated in the connection's own order (total, as it ends with the
  // key); row numbers are needed only to leave out the row past the page.
  const numbered = checksBeyondPage || conn.table.primaryKey.length === 0;
  const n: Expr = { kind: "column", table: alias, name: "__n" };
  // Row numbers count the rows an offset skips too.
  const inWindow = binary("<=", n, conn.offset ? binary("+", conn.pageSize, conn.offset) : conn.pageSize);
  const byPosition: OrderItem[] = [{ expr: n, direction: conn.backward ? "desc" : "asc", nulls: "last" }];
  // Read forward, the page subquery already yields its rows in the connection's order, and an
  // aggregate over a plain scan of an ordered subquery takes them in that order; sorting them
  // again inside the aggregate costs a sort per parent row in nested connections. Read backward,
  // the rows arrive reversed and are put back in order by the aggregate.
  const orderBy = conn.backward ? (numbered ? byPosition : orderItems(conn.order, row)) : [];
  const filter = numbered ? inWindow : null;
  const list = (item: JsonExpr): JsonExpr => ({ kind: "jsonAgg", item, orderBy, filter });
  const values = (e: Expr): Expr => ({ kind: "call", schema: null, name: "array_agg", args: [e], orderBy, ...(filter ? { filter } : {}) });
  const hasMore = binary(">", { kind: "countStar" }, conn.pageSize);
  return { conn, alias, row, checksBeyondPage, numbered, list, values, hasMore };
}

/**
 * The page subquery (the rows past the cursor in the connection's order, limited, only the
 * columns the fields used) and the SELECT building `object` from it.
 */
export function pageSelect(conn: ConnectionPlan, page: Page, scan: Scan, object: JsonExpr): JsonExpr {
  const effective = conn.backward ? conn.order.map(flip) : conn.order;
  const inner = scan(pastCursor(conn), (row) => {
    const columns = [
      ...[...page.row.used].map((name) => ({ expr: row.column(name), alias: "c_" + name })),
      ...(page.row.wholeUsed ? [{ expr: row.whole, alias: "__r" }] : []),
      ...[...page.row.derived].map(([alias, build]) => ({ expr: build(row), alias })),
      ...(page.numbered ? [{ expr: { kind: "rowNumber", orderBy: orderItems(effective, row) } as Expr, alias: "__n" }] : []),
    ];
    // Items that read no column (only `__typename`) still need a row each.
    return columns.length > 0 ? columns : [{ expr: bool(true), alias: "__row" }];
  });
  const innerRow = inner.from!.kind === "table" || inner.from!.kind === "function" ? tableRow(inner.from!.alias) : null;
  invariant(innerRow !== null, "page scan reads a table or function");
  inner.orderBy = orderItems(effective, innerRow);
  inner.limit = unplannedValue(page.checksBeyondPage ? binary("+", conn.pageSize, int(1)) : conn.pageSize);
  inner.offset = conn.offset ? unplannedValue(conn.offset) : null;
  return jsonSubquery({ from: { kind: "subquery", select: inner, alias: page.alias } }, object);
}

/**
 * The condition on a row to lie past the cursor in reading direction (after `after`, before
 * `before`), or null without a cursor.
 */
function pastCursor(conn: ConnectionPlan): ((row: RowRef) => Expr) | null {
  const effective = conn.backward ? conn.order.map(flip) : conn.order;
  // NOT NULL holds for rows a table scan reads, not for a function's rows or a foreign server's.
  const enforced = conn.source.kind === "table" && (conn.table.kind === "table" || conn.table.kind === "partitionedTable");
  const notNull = (name: string): boolean => enforced && conn.table.columns.some((c) => c.name === name && c.notNull);
  const cursor = conn.backward ? conn.before : conn.after;
  return cursor ? (row) => afterCursor(effective, cursor, row, notNull) : null;
}

/**
 * Whether a row lies before the page in reading direction (hasPreviousPage read forward,
 * hasNextPage read backward): a row on the cursor's own side, or a row the offset skipped.
 */
export function rowsBeforePage(conn: ConnectionPlan, scan: Scan): Expr {
  const past = pastCursor(conn);
  const one = () => [{ expr: int(1), alias: "one" }];
  const checks: Expr[] = [];
  if (past) {
    // The rows past the cursor are the tail of the connection's order, so a row lies behind the
    // cursor exactly when the first row in that order does: one row read from the ordering's
    // index, where asking for any row behind the cursor (a negated condition no index serves)
    // scans the table.
    const behind = (row: RowRef): Expr => ({ kind: "not", expr: call("coalesce", past(row), bool(false)) });
    const first = scan(null, (row) => [{ expr: behind(row), alias: "behind" }]);
    const firstRow = first.from!.kind === "table" || first.from!.kind === "function" ? tableRow(first.from!.alias) : null;
    invariant(firstRow !== null, "page scan reads a table or function");
    first.orderBy = orderItems(conn.backward ? conn.order.map(flip) : conn.order, firstRow);
    first.limit = int(1);
    checks.push(call("coalesce", { kind: "subquery", select: first }, bool(false)));
  }
  if (conn.offset) checks.push(and(binary(">", conn.offset, int(0)), { kind: "exists", select: scan(past, one) }));
  return checks.length === 0 ? bool(false) : or(...checks);
}

/**
 * A page size or offset the planner does not see when planning for the given values: a bare
 * `$n` makes every custom plan cheaper than the generic one (which must guess the size), so the
 * plan cache would plan each request anew; hidden in a one-row subquery, the generic plan costs
 * the same and is kept after PostgreSQL's five trial plans. The value itself stays bound.
 */
function unplannedValue(e: Expr): Expr {
  return { kind: "subquery", select: select({ columns: [{ expr: e, alias: "n" }] }) };
}

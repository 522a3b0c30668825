// Transpile stage, connections: a ConnectionPlan (optionally joined to a parent row) → one
// subquery building `{edges, pageInfo, totalCount, aggregate}` from a page of rows.

import type { AggregateFieldPlan, ConnectionFieldPlan, ConnectionPlan, EdgeFieldPlan, PageInfoFieldPlan } from "../plan/types";
import { unreachable } from "../util/invariant";
import { and, call, int, jsonNumberOrBool, jsonValue, pgType, select, type Expr, type JsonExpr, type Select } from "../sql/ast";
import { connectionPage, pageSelect, rowsBeforePage, type Page } from "./connectionPage";
import { sourceFrom } from "./connectionSource";
import { cursorExpr } from "./cursors";
import { filterExpr } from "./filterExpr";
import { nodeObject } from "./nodeObject";
import { objectOf, outputValue } from "./outputValue";
import { tableRow, type AliasCounter, type RowRef } from "./rowRef";

/** A scan of the connection's rows with extra conditions and the given columns. */
export type Scan = (extra: ((row: RowRef) => Expr) | null, columns: (row: RowRef) => Select["columns"]) => Select;

export function connectionExpr(
  conn: ConnectionPlan,
  join: ((row: RowRef) => Expr) | null,
  aliases: AliasCounter,
  parent: RowRef | null = null,
): JsonExpr {
  const scan: Scan = (extra, columns) => {
    const alias = aliases.next("t");
    const row = tableRow(alias);
    const parts: Expr[] = [];
    if (join) parts.push(join(row));
    if (conn.filter) parts.push(filterExpr(conn.filter, row, conn.table, aliases));
    const where = extra ? and(and(...parts), extra(row)) : and(...parts);
    return select({ columns: columns(row), from: sourceFrom(conn, alias, parent), where });
  };
  const page = connectionPage(conn, aliases);
  const object = objectOf(conn.fields, (f) => connectionFieldValue(f, page, scan, aliases));
  // Only edges, cursors and the flag of rows past the page read the page; the other fields
  // scan the rows on their own (and without an aggregate over the page, reading it would give a
  // row per page row).
  if (!conn.fields.some((f) => readsPage(f, conn.backward))) return object;
  return pageSelect(conn, page, scan, object);
}

function readsPage(f: ConnectionFieldPlan, backward: boolean): boolean {
  if (f.kind === "edges") return true;
  if (f.kind !== "pageInfo") return false;
  return f.fields.some((pf) => pf.kind === "startCursor" || pf.kind === "endCursor" || pf.kind === (backward ? "hasPreviousPage" : "hasNextPage"));
}

function connectionFieldValue(f: Exclude<ConnectionFieldPlan, { kind: "typename" }>, page: Page, scan: Scan, aliases: AliasCounter): JsonExpr {
  switch (f.kind) {
    case "totalCount":
      return jsonNumberOrBool({ kind: "subquery", select: scan(null, () => [{ expr: { kind: "countStar" }, alias: "count" }]) });
    case "edges":
      return page.list(edgeObject(f.fields, page, aliases));
    case "pageInfo":
      return pageInfoObject(f.fields, page, scan);
    case "aggregate":
      return { kind: "jsonSubquery", select: scan(null, (row) => [{ expr: aggregateObject(f.fields, row), alias: "aggregate" }]) };
    default:
      return unreachable(f, "connection field plan");
  }
}

function edgeObject(fields: EdgeFieldPlan[], page: Page, aliases: AliasCounter): JsonExpr {
  return objectOf(fields, (ef) => {
    switch (ef.kind) {
      case "cursor":
        return jsonValue(cursorExpr(page.conn.order, page.row));
      case "node":
        return nodeObject(ef.node, page.row, aliases);
      default:
        return unreachable(ef, "edge field plan");
    }
  });
}

function pageInfoObject(fields: PageInfoFieldPlan[], page: Page, scan: Scan): JsonExpr {
  const conn = page.conn;
  // One aggregate, however often it is named: PostgreSQL computes identical aggregates once.
  const cursors = page.values(cursorExpr(conn.order, page.row));
  return objectOf(fields, (pf) => {
    switch (pf.kind) {
      case "hasNextPage":
        return jsonNumberOrBool(conn.backward ? rowsBeforePage(conn, scan) : page.hasMore);
      case "hasPreviousPage":
        return jsonNumberOrBool(conn.backward ? page.hasMore : rowsBeforePage(conn, scan));
      case "startCursor":
        return jsonValue({ kind: "element", array: cursors, index: int(1) });
      case "endCursor":
        return jsonValue({ kind: "element", array: cursors, index: call("array_upper", cursors, int(1)) });
      default:
        return unreachable(pf, "page info field plan");
    }
  });
}

function aggregateObject(fields: AggregateFieldPlan[], row: RowRef): JsonExpr {
  return objectOf(fields, (af) => {
    switch (af.kind) {
      case "count":
        return jsonNumberOrBool({ kind: "countStar" });
      case "op":
        return objectOf(af.fields, (cf) => {
          const input = row.column(cf.column);
          return outputValue(call(af.op, cf.numericInput ? { kind: "cast", expr: input, type: pgType("numeric") } : input), cf.output);
        });
      default:
        return unreachable(af, "aggregate field plan");
    }
  });
}

// SQL stage, JSON builders: plan nodes (rows, relations, connections, filters) → the expressions
// that build their JSON inside PostgreSQL. Used by the root-field and write statement builders.

import type { Table } from "../catalog/model";
import type {
  ConnectionPlan,
  ConnectionSource,
  CursorPlan,
  FilterPlan,
  NodePlan,
  OrderPlan,
  OutputKind,
} from "../plan/types";
import { invariant, unreachable } from "../util/invariant";
import {
  and,
  binary,
  bool,
  call,
  col,
  int,
  or,
  param,
  pgType,
  select,
  text,
  type Expr,
  type FromItem,
  type OrderItem,
  type Select,
} from "./ast";

/** How expressions reach the columns of the row being rendered. */
export interface RowRef {
  column(name: string): Expr;
  whole: Expr;
}

export const textType = pgType("text");

/** Aliases are numbered in visiting order, so the same plan always gives the same SQL. */
export class AliasCounter {
  private n = 0;
  next(prefix: string): string {
    return prefix + this.n++;
  }
}

export function tableRow(alias: string): RowRef {
  return {
    column: (name) => ({ kind: "column", table: alias, name }),
    whole: { kind: "row", table: alias },
  };
}

/**
 * A row carried out of the page subquery: only the columns the outer expressions use (column
 * privileges may forbid the others), plus the whole row when a computed field needs it.
 */
interface CarriedRow extends RowRef {
  used: Set<string>;
  wholeUsed: boolean;
}

export function carriedRow(alias: string): CarriedRow {
  const row: CarriedRow = {
    used: new Set(),
    wholeUsed: false,
    column(name) {
      row.used.add(name);
      return { kind: "column", table: alias, name: "c_" + name };
    },
    get whole(): Expr {
      row.wholeUsed = true;
      return { kind: "column", table: alias, name: "__r" };
    },
  };
  return row;
}

export function tableFrom(table: Table, alias: string): FromItem {
  return { kind: "table", schema: table.schema, name: table.name, alias };
}

export function toJson(e: Expr): Expr {
  return call("to_json", e);
}

/**
 * The SQL value a field outputs, as json_build_object and json_agg write it (any type: they
 * convert it as to_json would, so object members and aggregated items need no to_json call).
 */
export function outputValue(e: Expr, kind: OutputKind): Expr {
  switch (kind.kind) {
    case "json":
      return e;
    case "text":
      return { kind: "cast", expr: e, type: textType };
    case "textArray":
      return { kind: "cast", expr: e, type: pgType("text", true) };
    case "enum":
      return {
        kind: "case",
        whens: kind.mapping.map((m) => ({
          when: binary("=", { kind: "cast", expr: e, type: textType }, param(m.label, textType)),
          then: param(m.name, textType),
        })),
        else: { kind: "cast", expr: e, type: textType },
      };
    default:
      return unreachable(kind, "output kind");
  }
}

/** A field's output as a json value of its own (outside an object or aggregate). */
export function output(e: Expr, kind: OutputKind): Expr {
  return toJson(outputValue(e, kind));
}

/**
 * base64 of the text, without the line breaks PostgreSQL's encoder inserts. Node ids and cursors
 * stay jsonb arrays: jsonb writes numbers in one canonical form (float 1e20 as
 * 100000000000000000000), which the decoder and earlier cursors rely on.
 */
function base64(e: Expr): Expr {
  return call("replace", call("encode", call("convert_to", e, text("utf8")), text("base64")), call("chr", int(10)), text(""));
}

function nodeIdExpr(table: Table, row: RowRef): Expr {
  const parts: Expr[] = [param(table.schema, textType), param(table.name, textType), ...table.primaryKey.map((c) => row.column(c))];
  return base64({ kind: "cast", expr: call("jsonb_build_array", ...parts), type: textType });
}

function cursorExpr(order: OrderPlan[], row: RowRef): Expr {
  return base64({ kind: "cast", expr: call("jsonb_build_array", ...order.map((o) => row.column(o.column))), type: textType });
}

export function nodeObject(node: NodePlan, row: RowRef, aliases: AliasCounter): Expr {
  const entries = node.fields.map((f): { key: string; value: Expr } => {
    switch (f.kind) {
      case "typename":
        return { key: f.key, value: param(f.value, textType) };
      case "column":
        return { key: f.key, value: outputValue(row.column(f.column), f.output) };
      case "nodeId":
        return { key: f.key, value: nodeIdExpr(f.table, row) };
      case "toOne": {
        const alias = aliases.next("t");
        const ref = tableRow(alias);
        const rel = f.relation;
        const where = and(...rel.toColumns.map((c, i) => binary("=", ref.column(c), row.column(rel.fromColumns[i]!))));
        const inner = select({ columns: [{ expr: nodeObject(f.node, ref, aliases), alias: "node" }], from: tableFrom(rel.to, alias), where, limit: int(1) });
        return { key: f.key, value: { kind: "subquery", select: inner } };
      }
      case "toMany": {
        const rel = f.relation;
        const join = (ref: RowRef): Expr => and(...rel.toColumns.map((c, i) => binary("=", ref.column(c), row.column(rel.fromColumns[i]!))));
        return { key: f.key, value: connectionExpr(f.connection, join, aliases, row) };
      }
      case "computedScalar":
        return { key: f.key, value: outputValue({ kind: "call", schema: f.fn.schema, name: f.fn.name, args: [row.whole] }, f.output) };
      case "computedRow": {
        const alias = aliases.next("t");
        const ref = tableRow(alias);
        const inner = select({
          columns: [{ expr: nodeObject(f.node, ref, aliases), alias: "node" }],
          from: { kind: "function", schema: f.fn.schema, name: f.fn.name, args: [{ name: null, value: row.whole }], alias },
          where: { kind: "not", expr: { kind: "isNull", expr: ref.whole, negated: false } },
          limit: int(1),
        });
        return { key: f.key, value: { kind: "subquery", select: inner } };
      }
      case "computedConnection":
        return { key: f.key, value: connectionExpr(f.connection, null, aliases, row) };
      default:
        return unreachable(f, "node field plan");
    }
  });
  return { kind: "jsonObject", entries };
}

function sourceFrom(conn: ConnectionPlan, alias: string, parent: RowRef | null): FromItem {
  const src = conn.source;
  switch (src.kind) {
    case "table":
      return tableFrom(conn.table, alias);
    case "function": {
      const args = src.args.map((a) => ({ name: a.name as string | null, value: a.value as Expr }));
      if (src.passParentRow) {
        invariant(parent !== null, "computed connection needs its parent row");
        args.unshift({ name: null, value: parent.whole });
      }
      return { kind: "function", schema: src.fn.schema, name: src.fn.name, args, alias };
    }
    case "calledOnce":
      // unnest of the row array keeps the table's row type, which computed fields take.
      return { kind: "function", schema: "pg_catalog", name: "unnest", args: [{ name: null, value: col(CALLED_ONCE, "rows") }], alias };
    default:
      return unreachable(src, "connection source");
  }
}

/** The root statement's FROM alias holding a `calledOnce` function's rows as one array. */
const CALLED_ONCE = "called";

/** The FROM item a root connection over a `calledOnce` source reads its rows from. */
export function calledOnceFrom(src: Extract<ConnectionSource, { kind: "calledOnce" }>): FromItem {
  const alias = "f";
  const fnCall: FromItem = {
    kind: "function",
    schema: src.fn.schema,
    name: src.fn.name,
    args: src.args.map((a) => ({ name: a.name, value: a.value })),
    alias,
  };
  return {
    kind: "subquery",
    select: select({ columns: [{ expr: { kind: "call", schema: null, name: "array_agg", args: [{ kind: "row", table: alias }] }, alias: "rows" }], from: fnCall }),
    alias: CALLED_ONCE,
  };
}

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
    case "never":
      return bool(false);
    case "primaryKey":
      return and(...table.primaryKey.map((c, i) => binary("=", row.column(c), f.values[i]!)));
    case "compare": {
      const c = row.column(f.column);
      switch (f.op) {
        case "eq":
          return binary("=", c, f.value);
        case "neq":
          return binary("<>", c, f.value);
        case "lt":
          return binary("<", c, f.value);
        case "lte":
          return binary("<=", c, f.value);
        case "gt":
          return binary(">", c, f.value);
        case "gte":
          return binary(">=", c, f.value);
        case "in":
          return { kind: "anyOf", expr: c, array: f.value };
        case "startsWith":
          return call("starts_with", { kind: "cast", expr: c, type: textType }, { kind: "cast", expr: f.value, type: textType });
        case "like":
          return binary("like", c, f.value);
        case "ilike":
          return binary("ilike", c, f.value);
        case "regex":
          return binary("~", c, f.value);
        case "iregex":
          return binary("~*", c, f.value);
        case "contains":
          return binary("@>", c, f.value);
        case "containedBy":
          return binary("<@", c, f.value);
        case "overlaps":
          return binary("&&", c, f.value);
        default:
          return unreachable(f.op, "compare op");
      }
    }
    default:
      return unreachable(f, "filter plan");
  }
}

function flip(o: OrderPlan): OrderPlan {
  return { column: o.column, direction: o.direction === "asc" ? "desc" : "asc", nulls: o.nulls === "first" ? "last" : "first" };
}

/**
 * Rows strictly after the cursor position in `order` (null-aware, lexicographic). Which cursor
 * values are null is known, so each comparison is a plain `col op $n` where it can be; a column
 * repeated in the order (the key closing an order that names it) adds nothing and is skipped.
 * `notNull` names the columns that cannot hold null in the rows scanned.
 */
function afterCursor(order: OrderPlan[], cursor: CursorPlan, row: RowRef, notNull: (column: string) => boolean): Expr {
  const seen = new Set<string>();
  const equalBefore: Expr[] = [];
  const branches: Expr[] = [];
  let leading: Expr | null = null;
  order.forEach((o, i) => {
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

/**
 * A page size or offset the planner does not see when planning for the given values: a bare
 * `$n` makes every custom plan cheaper than the generic one (which must guess the size), so the
 * plan cache would plan each request anew; hidden in a one-row subquery, the generic plan costs
 * the same and is kept after PostgreSQL's five trial plans. The value itself stays bound.
 */
function unplannedValue(e: Expr): Expr {
  return { kind: "subquery", select: select({ columns: [{ expr: e, alias: "n" }] }) };
}

function orderItems(order: OrderPlan[], row: RowRef): OrderItem[] {
  const seen = new Set<string>();
  const items: OrderItem[] = [];
  for (const o of order) {
    if (seen.has(o.column)) continue;
    seen.add(o.column);
    items.push({ expr: row.column(o.column), direction: o.direction, nulls: o.nulls });
  }
  return items;
}

export function connectionExpr(
  conn: ConnectionPlan,
  join: ((row: RowRef) => Expr) | null,
  aliases: AliasCounter,
  parent: RowRef | null = null,
): Expr {
  const baseWhere = (row: RowRef): Expr => {
    const parts: Expr[] = [];
    if (join) parts.push(join(row));
    if (conn.filter) parts.push(filterExpr(conn.filter, row, conn.table));
    return and(...parts);
  };
  const scan = (extra: ((row: RowRef) => Expr) | null, columns: (row: RowRef) => Select["columns"]): Select => {
    const alias = aliases.next("t");
    const row = tableRow(alias);
    const where = extra ? and(baseWhere(row), extra(row)) : baseWhere(row);
    return select({ columns: columns(row), from: sourceFrom(conn, alias, parent), where });
  };

  const effective = conn.backward ? conn.order.map(flip) : conn.order;
  // NOT NULL holds for rows a table scan reads, not for a function's rows or a foreign server's.
  const enforced = conn.source.kind === "table" && (conn.table.kind === "table" || conn.table.kind === "partitionedTable");
  const notNull = (name: string): boolean => enforced && conn.table.columns.some((c) => c.name === name && c.notNull);
  const cursor = conn.backward ? conn.before : conn.after;

  const pageAlias = aliases.next("p");
  const page = carriedRow(pageAlias);
  // Only pageInfo looks one row past the page; without it the page is read exactly.
  const checksBeyondPage = conn.fields.some((f) => f.kind === "pageInfo");
  // A page read exactly is aggregated in the connection's own order (total, as it ends with the
  // key); row numbers are needed only to leave out the row past the page.
  const numbered = checksBeyondPage || conn.table.primaryKey.length === 0;
  const n: Expr = { kind: "column", table: pageAlias, name: "__n" };
  // Row numbers count the rows an offset skips too.
  const inWindow = binary("<=", n, conn.offset ? binary("+", conn.pageSize, conn.offset) : conn.pageSize);
  const byPosition: OrderItem[] = [{ expr: n, direction: conn.backward ? "desc" : "asc", nulls: "last" }];
  // Read forward, the page subquery already yields its rows in the connection's order, and an
  // aggregate over a plain scan of an ordered subquery takes them in that order; sorting them
  // again inside the aggregate costs a sort per parent row in nested connections. Read backward,
  // the rows arrive reversed and are put back in order by the aggregate.
  const aggOrder = (items: OrderItem[]): OrderItem[] => (conn.backward ? items : []);
  const windowAgg = (e: Expr): Expr =>
    numbered
      ? { kind: "call", schema: null, name: "json_agg", args: [e], orderBy: aggOrder(byPosition), filter: inWindow }
      : { kind: "call", schema: null, name: "json_agg", args: [e], orderBy: aggOrder(orderItems(conn.order, page)) };
  const hasMore = binary(">", { kind: "countStar" }, conn.pageSize);

  const entries: { key: string; value: Expr }[] = [];
  let needsPage = false;
  for (const f of conn.fields) {
    switch (f.kind) {
      case "typename":
        entries.push({ key: f.key, value: param(f.value, textType) });
        break;
      case "totalCount": {
        const count = scan(null, () => [{ expr: { kind: "countStar" }, alias: "count" }]);
        entries.push({ key: f.key, value: { kind: "subquery", select: count } });
        break;
      }
      case "edges": {
        needsPage = true;
        const edge: Expr = {
          kind: "jsonObject",
          entries: f.fields.map((ef) => {
            switch (ef.kind) {
              case "typename":
                return { key: ef.key, value: param(ef.value, textType) };
              case "cursor":
                return { key: ef.key, value: cursorExpr(conn.order, page) };
              case "node":
                return { key: ef.key, value: nodeObject(ef.node, page, aliases) };
              default:
                return unreachable(ef, "edge field plan");
            }
          }),
        };
        entries.push({ key: f.key, value: call("coalesce", windowAgg(edge), call("json_build_array")) });
        break;
      }
      case "pageInfo": {
        needsPage = true;
        const cursors = windowAgg(cursorExpr(conn.order, page));
        entries.push({
          key: f.key,
          value: {
            kind: "jsonObject",
            entries: f.fields.map((pf) => {
              switch (pf.kind) {
                case "typename":
                  return { key: pf.key, value: param(pf.value, textType) };
                case "hasNextPage":
                  return { key: pf.key, value: conn.backward ? conn.hasNextFromArgs : hasMore };
                case "hasPreviousPage":
                  return { key: pf.key, value: conn.backward ? hasMore : conn.hasPreviousFromArgs };
                case "startCursor":
                  return { key: pf.key, value: binary("->", cursors, int(0)) };
                case "endCursor":
                  return { key: pf.key, value: binary("->", cursors, int(-1)) };
                default:
                  return unreachable(pf, "page info field plan");
              }
            }),
          },
        });
        break;
      }
      case "aggregate": {
        const agg = scan(null, (row) => [
          {
            expr: {
              kind: "jsonObject",
              entries: f.fields.map((af) => {
                switch (af.kind) {
                  case "typename":
                    return { key: af.key, value: param(af.value, textType) };
                  case "count":
                    return { key: af.key, value: { kind: "countStar" } };
                  case "op":
                    return {
                      key: af.key,
                      value: {
                        kind: "jsonObject",
                        entries: af.fields.map((cf) =>
                          cf.kind === "typename"
                            ? { key: cf.key, value: param(cf.value, textType) }
                            : { key: cf.key, value: outputValue(call(af.op, row.column(cf.column)), cf.output) },
                        ),
                      },
                    };
                  default:
                    return unreachable(af, "aggregate field plan");
                }
              }),
            },
            alias: "aggregate",
          },
        ]);
        entries.push({ key: f.key, value: { kind: "subquery", select: agg } });
        break;
      }
      default:
        unreachable(f, "connection field plan");
    }
  }

  const object: Expr = { kind: "jsonObject", entries };
  if (!needsPage) return object;

  const inner = scan(
    cursor ? (row) => afterCursor(effective, cursor, row, notNull) : null,
    (row) => [
      ...[...page.used].map((name) => ({ expr: row.column(name), alias: "c_" + name })),
      ...(page.wholeUsed ? [{ expr: row.whole, alias: "__r" }] : []),
      ...(numbered ? [{ expr: { kind: "rowNumber", orderBy: orderItems(effective, row) } as Expr, alias: "__n" }] : []),
    ],
  );
  const innerRow = inner.from!.kind === "table" || inner.from!.kind === "function" ? tableRow(inner.from!.alias) : null;
  invariant(innerRow !== null, "page scan reads a table or function");
  inner.orderBy = orderItems(effective, innerRow);
  inner.limit = unplannedValue(checksBeyondPage ? binary("+", conn.pageSize, int(1)) : conn.pageSize);
  inner.offset = conn.offset ? unplannedValue(conn.offset) : null;
  return { kind: "subquery", select: select({ columns: [{ expr: object, alias: "connection" }], from: { kind: "subquery", select: inner, alias: pageAlias } }) };
}

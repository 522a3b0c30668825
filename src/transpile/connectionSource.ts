// Transpile stage, connection sources: where a connection's rows come from (its table, a
// set-returning function, or the rows of a volatile function called once) → the FROM item.

import type { ConnectionPlan, ConnectionSource } from "../plan/types";
import { invariant, unreachable } from "../util/invariant";
import { col, select, type Expr, type FromItem } from "../sql/ast";
import { tableFrom, type RowRef } from "./rowRef";

/** The root statement's FROM alias holding a `calledOnce` function's rows as one array. */
const CALLED_ONCE = "called";

export function sourceFrom(conn: ConnectionPlan, alias: string, parent: RowRef | null): FromItem {
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

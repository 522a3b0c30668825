// Transpile stage, rows: a NodePlan over a row → the JSON object of its fields (columns, node id,
// related rows and connections, computed fields), related rows as correlated subqueries.

import type { NodeFieldPlan, NodePlan } from "../plan/types";
import { unreachable } from "../util/invariant";
import { and, binary, int, jsonSubquery, jsonValue, type Expr, type JsonExpr } from "../sql/ast";
import { connectionExpr } from "./connectionExpr";
import { nodeIdExpr } from "./cursors";
import { objectOf, outputValue } from "./outputValue";
import { tableFrom, tableRow, type AliasCounter, type RowRef } from "./rowRef";

export function nodeObject(node: NodePlan, row: RowRef, aliases: AliasCounter): JsonExpr {
  return objectOf(node.fields, (f) => nodeFieldValue(f, row, aliases));
}

function nodeFieldValue(f: Exclude<NodeFieldPlan, { kind: "typename" }>, row: RowRef, aliases: AliasCounter): JsonExpr {
  switch (f.kind) {
    case "column":
      return outputValue(row.column(f.column), f.output);
    case "nodeId":
      return jsonValue(nodeIdExpr(f.table, row));
    case "toOne": {
      const alias = aliases.next("t");
      const ref = tableRow(alias);
      const rel = f.relation;
      const where = and(...rel.toColumns.map((c, i) => binary("=", ref.column(c), row.column(rel.fromColumns[i]!))));
      return jsonSubquery({ from: tableFrom(rel.to, alias), where, limit: int(1) }, nodeObject(f.node, ref, aliases));
    }
    case "toMany": {
      const rel = f.relation;
      const join = (ref: RowRef): Expr => and(...rel.toColumns.map((c, i) => binary("=", ref.column(c), row.column(rel.fromColumns[i]!))));
      return connectionExpr(f.connection, join, aliases, row);
    }
    case "computedScalar":
      return outputValue({ kind: "call", schema: f.fn.schema, name: f.fn.name, args: [row.whole] }, f.output);
    case "computedRow": {
      const alias = aliases.next("t");
      const ref = tableRow(alias);
      return jsonSubquery(
        {
          from: { kind: "function", schema: f.fn.schema, name: f.fn.name, args: [{ name: null, value: row.whole }], alias },
          where: { kind: "not", expr: { kind: "isNull", expr: ref.whole, negated: false } },
          limit: int(1),
        },
        nodeObject(f.node, ref, aliases),
      );
    }
    case "computedConnection":
      return connectionExpr(f.connection, null, aliases, row);
    default:
      return unreachable(f, "node field plan");
  }
}

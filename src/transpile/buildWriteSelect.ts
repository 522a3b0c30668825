// Transpile stage: a write plan → one statement: the insert/update/delete as a data-modifying CTE
// returning the columns the response uses, and a SELECT building `{affectedCount, records}` from
// it. An update or delete touching more rows than `atMost` raises, undoing the request.

import type { WritePlan, WriteResultFieldPlan } from "../plan/types";
import { unreachable } from "../util/invariant";
import { binary, jsonNumberOrBool, param, type Expr, type Select, type WriteStatement } from "../sql/ast";
import { filterExpr } from "./filterExpr";
import { nodeObject } from "./nodeObject";
import { objectOf } from "./outputValue";
import { carriedRow, tableRow, textType, type AliasCounter } from "./rowRef";

const WRITTEN = "written";

export function buildWriteSelect(
  write: Exclude<WritePlan, { kind: "nestedInsert" }>,
  fields: WriteResultFieldPlan[],
  aliases: AliasCounter,
  asText: (e: Expr) => Select,
): Select {
  const target = aliases.next("t");
  const rowsAlias = aliases.next("w");
  const written = carriedRow(rowsAlias);
  let result: Expr = objectOf(fields, (f) => {
    switch (f.kind) {
      case "affectedCount":
        return jsonNumberOrBool({ kind: "countStar" });
      case "records":
        return { kind: "jsonAgg", item: nodeObject(f.node, written, aliases), orderBy: [], filter: null };
      default:
        return unreachable(f, "write result field");
    }
  });
  if (write.kind !== "insert") {
    const message = param(write.kind + " impacts too many records", textType);
    result = {
      kind: "case",
      whens: [
        {
          when: binary(">", { kind: "countStar" }, write.atMost),
          // text, as the answer is: the CASE needs no cast to join its branches.
          then: { kind: "call", schema: "graphql", name: "exception", args: [message] },
        },
      ],
      else: result,
    };
  }

  const row = tableRow(target);
  // Every written row must be counted, so RETURNING always yields at least one column.
  const returning = [...written.used].map((name) => ({ expr: row.column(name), alias: "c_" + name }));
  if (written.wholeUsed) returning.push({ expr: row.whole, alias: "__r" });
  if (returning.length === 0) returning.push({ expr: { kind: "bool", value: true }, alias: "__written" });

  const t = write.table;
  let statement: WriteStatement;
  switch (write.kind) {
    case "insert": {
      const c = write.onConflict;
      const onConflict = c && { constraint: c.constraint, set: c.update, where: c.filter ? filterExpr(c.filter, row, t, aliases) : null };
      statement = { kind: "insert", schema: t.schema, table: t.name, alias: target, columns: write.columns, rows: write.rows, returning, ...(onConflict ? { onConflict } : {}) };
      break;
    }
    case "update":
      statement = {
        kind: "update",
        schema: t.schema,
        table: t.name,
        alias: target,
        set: write.set.map((s) => ({ column: s.column, value: s.value })),
        where: write.filter ? filterExpr(write.filter, row, t, aliases) : null,
        returning,
      };
      break;
    case "delete":
      statement = { kind: "delete", schema: t.schema, table: t.name, alias: target, where: write.filter ? filterExpr(write.filter, row, t, aliases) : null, returning };
      break;
    default:
      return unreachable(write, "write plan");
  }
  const outer = asText(result);
  return { ...outer, with: [{ name: WRITTEN, statement }], from: { kind: "cte", name: WRITTEN, alias: rowsAlias } };
}

// Transpile stage: an OperationPlan's root fields → one SELECT each, building the field's whole JSON
// as text (nested relations folded in as subqueries) in a column "result".

import type { RootFieldPlan } from "../plan/types";
import { invariant, unreachable } from "../util/invariant";
import { and, binary, int, jsonSubquery, nullExpr, select, type Expr, type FromItem, type Select } from "../sql/ast";
import { connectionExpr } from "./connectionExpr";
import { calledOnceFrom } from "./connectionSource";
import { nodeObject } from "./nodeObject";
import { outputValue } from "./outputValue";
import { AliasCounter, tableFrom, tableRow } from "./rowRef";
import { buildWriteSelect } from "./buildWriteSelect";
import { nestedInsertSteps } from "./nestedInsertSteps";

/**
 * The statements a root field runs, in order (none when it needs no database); the last one's
 * `result` is the field's answer. One for every field but a nested insert.
 */
export function buildRootStatements(field: RootFieldPlan): Select[] {
  if (field.kind === "write" && field.write.kind === "nestedInsert") return nestedInsertSteps(field.write, field.fields);
  const s = buildRootSelect(field);
  return s === null ? [] : [s];
}

export function buildRootSelect(field: RootFieldPlan): Select | null {
  const aliases = new AliasCounter();
  const asText = (e: Expr): Select => select({ columns: [{ expr: e, alias: "result" }] });
  switch (field.kind) {
    case "typename":
    case "introspection":
    case "null":
    case "error":
      return null;
    case "connection": {
      const s = asText(connectionExpr(field.connection, null, aliases));
      const src = field.connection.source;
      return src.kind === "calledOnce" ? { ...s, from: calledOnceFrom(src) } : s;
    }
    case "row": {
      const alias = aliases.next("t");
      const ref = tableRow(alias);
      let from: FromItem;
      let where: Expr;
      if (field.source.kind === "primaryKey") {
        from = tableFrom(field.table, alias);
        where = and(...field.table.primaryKey.map((c, i) => binary("=", ref.column(c), field.source.kind === "primaryKey" ? field.source.values[i]! : nullExpr)));
      } else {
        const fn = field.source.fn;
        from = { kind: "function", schema: fn.schema, name: fn.name, args: field.source.args.map((a) => ({ name: a.name, value: a.value })), alias };
        where = { kind: "not", expr: { kind: "isNull", expr: ref.whole, negated: false } };
      }
      return asText(jsonSubquery({ from, where, limit: int(1) }, nodeObject(field.node, ref, aliases)));
    }
    case "write":
      // A nested insert runs as several statements: buildRootStatements() makes them.
      invariant(field.write.kind !== "nestedInsert", "a nested insert is not one statement");
      return buildWriteSelect(field.write, field.fields, aliases, asText);
    case "scalarFunction": {
      const alias = aliases.next("t");
      const fn = field.fn;
      const from: FromItem = { kind: "function", schema: fn.schema, name: fn.name, args: field.args.map((a) => ({ name: a.name, value: a.value })), alias };
      return asText(jsonSubquery({ from }, outputValue({ kind: "row", table: alias }, field.output)));
    }
    default:
      return unreachable(field, "root field plan");
  }
}

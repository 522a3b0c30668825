// Transpile stage, nested inserts (opt-in): a nested insert plan → its statements, in order: one
// insert per group of rows, handing back (as a JSON list of text values per row) the keys later
// groups refer to, then the selection of the root rows. Separate statements, not data-modifying
// CTEs of one: each sees the rows the ones before it inserted, so a row's policies and
// constraints can check its parent, and the selection sees every row inserted.

import type { InsertGroupPlan, InsertValuePlan, NodePlan, WritePlan, WriteResultFieldPlan } from "../plan/types";
import { unreachable } from "../util/invariant";
import {
  and,
  binary,
  bool,
  call,
  col,
  int,
  jsonNumberOrBool,
  jsonSubquery,
  nullExpr,
  param,
  pgType,
  select,
  type Expr,
  type JsonExpr,
  type ParamNode,
  type ResultLink,
  type Select,
  type SqlType,
} from "../sql/ast";
import { renderType } from "../sql/renderSql";
import { nodeObject } from "./nodeObject";
import { objectOf } from "./outputValue";
import { AliasCounter, tableFrom, tableRow, textType } from "./rowRef";

type NestedInsert = Extract<WritePlan, { kind: "nestedInsert" }>;

const WRITTEN = "written";

/**
 * The parameters a statement binds from earlier statements' results: one per result it reads
 * whole, one per value and type it reads alone (rows sharing a parent share its key's parameter).
 */
class Links {
  private readonly params = new Map<string, ParamNode>();
  /** An earlier statement's whole result, as jsonb. */
  result(step: number): ParamNode {
    return this.param(`${step}`, pgType("jsonb"), { kind: "result", step });
  }
  /** A value an earlier statement handed back: row `row`, column `column` of its result, as `type`. */
  value(v: Extract<InsertValuePlan, { kind: "inserted" }>): ParamNode {
    return this.param(`${v.group}.${v.row}.${v.column}:${renderType(v.type)}`, v.type, { kind: "value", step: v.group, row: v.row, column: v.column });
  }
  private param(key: string, type: SqlType, link: ResultLink): ParamNode {
    let p = this.params.get(key);
    if (p === undefined) this.params.set(key, (p = { ...param(null, type), link }));
    return p;
  }
}

function value(v: InsertValuePlan, links: Links): Expr | null {
  if (v === null || v.kind === "param") return v;
  return links.value(v);
}

/** One inserted row's handed-back values, as a JSON list of their texts. */
function handedBackRow(g: InsertGroupPlan, rowsAlias: string): JsonExpr {
  return { kind: "jsonValue", expr: call("json_build_array", ...g.returns.map((_, i) => col(rowsAlias, `r${i}`))), via: "text" };
}

/**
 * A group's insert, as a data-modifying CTE, and the list of its rows' returned values (in the
 * order given, which `inserted` values refer to by position). A row a trigger kept out would
 * shift those positions: the statement fails instead.
 */
function groupStep(g: InsertGroupPlan): Select {
  const aliases = new AliasCounter();
  const target = aliases.next("t");
  const rowsAlias = aliases.next("w");
  const links = new Links();
  const row = tableRow(target);
  const returning = g.returns.map((c, i) => ({ expr: { kind: "cast", expr: row.column(c), type: textType } as Expr, alias: `r${i}` }));
  // Every inserted row must be counted, so RETURNING always yields at least one column.
  if (returning.length === 0) returning.push({ expr: bool(true), alias: "__written" });
  const rows = g.rows.map((r) => r.map((v) => value(v, links)));
  const message = param(`a nested insert into ${g.table.schema}.${g.table.name} inserted fewer rows than given`, textType);
  // A group no later statement reads (it hands back no column) answers null once its rows are
  // counted, without building a list of empty rows.
  const result: Expr = {
    kind: "case",
    whens: [{ when: binary("<>", { kind: "countStar" }, int(g.rows.length)), then: { kind: "call", schema: "graphql", name: "exception", args: [message] } }],
    else: g.returns.length === 0 ? nullExpr : { kind: "jsonAgg", item: handedBackRow(g, rowsAlias), orderBy: [], filter: null },
  };
  return {
    ...select({ columns: [{ expr: result, alias: "result" }], from: { kind: "cte", name: WRITTEN, alias: rowsAlias } }),
    with: [{ name: WRITTEN, statement: { kind: "insert", schema: g.table.schema, table: g.table.name, alias: target, columns: g.columns, rows, returning } }],
  };
}

/** The response: the root rows, read by key after every group is in, as the request selects them. */
function selectionStep(write: NestedInsert, fields: WriteResultFieldPlan[]): Select {
  const aliases = new AliasCounter();
  const links = new Links();
  const k = aliases.next("k");
  const element = col(k, "value");
  const t = write.table;
  const record = (node: NodePlan): JsonExpr => {
    const alias = aliases.next("t");
    const ref = tableRow(alias);
    const where = and(
      ...t.primaryKey.map((c, i) => binary("=", ref.column(c), { kind: "cast", expr: binary("->>", element, int(write.key[i]!.column)), type: write.key[i]!.type })),
    );
    return jsonSubquery({ from: tableFrom(t, alias), where, limit: int(1) }, nodeObject(node, ref, aliases));
  };
  const result = objectOf(fields, (f) => {
    switch (f.kind) {
      case "affectedCount":
        return jsonNumberOrBool({ kind: "countStar" });
      case "records":
        return { kind: "jsonAgg", item: record(f.node), orderBy: [], filter: null };
      default:
        return unreachable(f, "write result field");
    }
  });
  return select({
    columns: [{ expr: result, alias: "result" }],
    from: { kind: "function", schema: "pg_catalog", name: "jsonb_array_elements", args: [{ name: null, value: links.result(write.root) }], alias: k },
  });
}

export function nestedInsertSteps(write: NestedInsert, fields: WriteResultFieldPlan[]): Select[] {
  return [...write.groups.map(groupStep), selectionStep(write, fields)];
}

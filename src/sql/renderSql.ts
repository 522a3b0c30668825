// SQL stage: the single renderer. Input: a `Select` tree; output: statement text with `$n`
// placeholders and the matching text-or-null parameter values, in order of appearance.

import { invariant, unreachable } from "../util/invariant";
import type { Expr, FromItem, OrderItem, ParamNode, Returning, Select, SqlType, WriteStatement } from "./ast";
import { quoteIdent } from "./quoteIdent";

export interface Statement {
  sql: string;
  params: (string | null)[];
  /** The parameter node behind each `$n` (n - 1), for callers that re-bind cached statements. */
  nodes: ParamNode[];
}

/** PostgreSQL caps function arguments at 100, so one json_build_object call holds 50 pairs. */
const MAX_PAIRS_PER_CALL = 50;

/** Planner-chosen constants only (JSON keys, type names): GraphQL names and fixed words. */
const SAFE_TEXT = /^[A-Za-z0-9_]*$/;

export function renderSql(root: Select): Statement {
  const params: (string | null)[] = [];
  const nodes: ParamNode[] = [];
  const numbers = new Map<ParamNode, number>();

  function renderParam(p: ParamNode): string {
    let n = numbers.get(p);
    if (n === undefined) {
      params.push(p.value);
      nodes.push(p);
      n = params.length;
      numbers.set(p, n);
    }
    return "$" + n + "::" + renderType(p.type);
  }

  function expr(e: Expr): string {
    switch (e.kind) {
      case "column":
        return quoteIdent(e.table) + "." + quoteIdent(e.name);
      case "field":
        return "(" + expr(e.expr) + ")." + quoteIdent(e.name);
      case "row":
        return quoteIdent(e.table);
      case "param":
        return renderParam(e);
      case "int":
        invariant(Number.isSafeInteger(e.value), "int literal must be a safe integer");
        return String(e.value);
      case "bool":
        return e.value ? "true" : "false";
      case "null":
        return "null";
      case "text":
        invariant(SAFE_TEXT.test(e.value), "text constant must be a plain name");
        return "'" + e.value + "'";
      case "call": {
        const name = (e.schema === null ? "" : quoteIdent(e.schema) + ".") + functionName(e.name, e.schema);
        const order = e.orderBy && e.orderBy.length > 0 ? " order by " + orderList(e.orderBy) : "";
        const filter = e.filter ? " filter (where " + expr(e.filter) + ")" : "";
        return name + "(" + e.args.map(expr).join(", ") + order + ")" + filter;
      }
      case "countStar":
        return "count(*)";
      case "rowNumber":
        return "row_number() over (order by " + orderList(e.orderBy) + ")";
      case "binary":
        return "(" + expr(e.left) + " " + e.op + " " + expr(e.right) + ")";
      case "and":
        if (e.items.length === 0) return "true";
        return "(" + e.items.map(expr).join(" and ") + ")";
      case "or":
        if (e.items.length === 0) return "false";
        return "(" + e.items.map(expr).join(" or ") + ")";
      case "not":
        return "(not " + expr(e.expr) + ")";
      case "isNull":
        return "(" + expr(e.expr) + (e.negated ? " is not null)" : " is null)");
      case "cast":
        return "(" + expr(e.expr) + ")::" + renderType(e.type);
      case "case":
        return (
          "case " +
          e.whens.map((w) => "when " + expr(w.when) + " then " + expr(w.then)).join(" ") +
          " else " +
          expr(e.else) +
          " end"
        );
      case "subquery":
        return "(" + selectText(e.select) + ")";
      case "exists":
        return "exists(" + selectText(e.select) + ")";
      case "anyOf":
        return "(" + expr(e.expr) + " = any(" + expr(e.array) + "))";
      case "jsonObject": {
        // json (not jsonb): kept as written, no per-level key sorting or deduplication; the
        // response is parsed into jsonb once, at the end.
        if (e.entries.length === 0) return "json_build_object()";
        const chunks: string[] = [];
        for (let i = 0; i < e.entries.length; i += MAX_PAIRS_PER_CALL) {
          const pairs = e.entries
            .slice(i, i + MAX_PAIRS_PER_CALL)
            .map((en) => expr({ kind: "text", value: en.key }) + ", " + expr(en.value));
          chunks.push(pairs.join(", "));
        }
        if (chunks.length === 1) return "json_build_object(" + chunks[0]! + ")";
        // json has no object concatenation: the rare object past the argument limit is merged
        // as jsonb, which keeps the same keys and values.
        return "(" + chunks.map((c) => "jsonb_build_object(" + c + ")").join(" || ") + ")::json";
      }
      default: {
        return unreachable(e, "expression");
      }
    }
  }

  function orderList(items: OrderItem[]): string {
    return items.map((o) => expr(o.expr) + " " + o.direction + " nulls " + o.nulls).join(", ");
  }

  function from(f: FromItem): string {
    switch (f.kind) {
      case "table":
        return quoteIdent(f.schema) + "." + quoteIdent(f.name) + " as " + quoteIdent(f.alias);
      case "subquery":
        return "(" + selectText(f.select) + ") as " + quoteIdent(f.alias);
      case "cte":
        return quoteIdent(f.name) + " as " + quoteIdent(f.alias);
      case "function":
        return (
          quoteIdent(f.schema) +
          "." +
          quoteIdent(f.name) +
          "(" +
          f.args.map((a) => (a.name === null ? "" : quoteIdent(a.name) + " => ") + expr(a.value)).join(", ") +
          ") as " +
          quoteIdent(f.alias)
        );
      default: {
        return unreachable(f, "from item");
      }
    }
  }

  function returning(r: Returning): string {
    return r.length === 0 ? "" : " returning " + r.map((c) => expr(c.expr) + " as " + quoteIdent(c.alias)).join(", ");
  }

  function write(w: WriteStatement): string {
    const target = quoteIdent(w.schema) + "." + quoteIdent(w.table) + " as " + quoteIdent(w.alias);
    switch (w.kind) {
      case "insert": {
        invariant(w.rows.length > 0, "insert needs at least one row");
        const columns = w.columns.length === 0 ? "" : " (" + w.columns.map(quoteIdent).join(", ") + ")";
        // Objects that set no column at all are rows of defaults; `default values` makes only one,
        // and a column-less select makes as many as asked.
        const values =
          w.columns.length > 0
            ? " values " + w.rows.map((row) => "(" + row.map((v) => (v === null ? "default" : expr(v))).join(", ") + ")").join(", ")
            : w.rows.length === 1
              ? " default values"
              : " select from generate_series(1, " + expr({ kind: "int", value: w.rows.length }) + ")";
        return "insert into " + target + columns + values + returning(w.returning);
      }
      case "update":
        invariant(w.set.length > 0, "update needs at least one column");
        return (
          "update " +
          target +
          " set " +
          w.set.map((a) => quoteIdent(a.column) + " = " + expr(a.value)).join(", ") +
          (w.where ? " where " + expr(w.where) : "") +
          returning(w.returning)
        );
      case "delete":
        return "delete from " + target + (w.where ? " where " + expr(w.where) : "") + returning(w.returning);
      default:
        return unreachable(w, "write statement");
    }
  }

  function selectText(s: Select): string {
    invariant(s.columns.length > 0, "select needs at least one column");
    const ctes = s.with && s.with.length > 0 ? "with " + s.with.map((c) => quoteIdent(c.name) + " as (" + write(c.statement) + ")").join(", ") + " " : "";
    let out = ctes + "select " + s.columns.map((c) => expr(c.expr) + " as " + quoteIdent(c.alias)).join(", ");
    if (s.from) out += " from " + from(s.from);
    if (s.where) out += " where " + expr(s.where);
    if (s.orderBy.length > 0) out += " order by " + orderList(s.orderBy);
    if (s.limit) out += " limit " + expr(s.limit);
    if (s.offset) out += " offset " + expr(s.offset);
    return out;
  }

  const sql = selectText(root);
  return { sql, params, nodes };
}

/** Built-in SQL functions the planner calls are bare lowercase names; others are quoted. */
function functionName(name: string, schema: string | null): string {
  if (schema === null) {
    invariant(/^[a-z_][a-z0-9_]*$/.test(name), "built-in function name must be plain: " + name);
    return name;
  }
  return quoteIdent(name);
}

export function renderType(t: SqlType): string {
  return (t.schema === null ? "" : quoteIdent(t.schema) + ".") + quoteIdent(t.name) + (t.array ? "[]" : "");
}

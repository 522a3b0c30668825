// SQL stage: the single renderer. Input: a `Select` tree; output: statement text with `$n`
// placeholders and the matching text-or-null parameter values, in order of appearance.

import { invariant, unreachable } from "../util/invariant";
import type { Expr, FromItem, JsonExpr, OnConflict, OrderItem, ParamNode, Returning, Select, SqlType, WriteStatement } from "./ast";
import { quoteIdent } from "./quoteIdent";
import { quoteLiteral } from "./quoteLiteral";

export interface Statement {
  sql: string;
  params: (string | null)[];
  /** The parameter node behind each `$n` (n - 1), for callers that re-bind cached statements. */
  nodes: ParamNode[];
  /** The type each parameter is bound as (`bindTypeName`): fixed by the text, so kept with it. */
  types: string[];
}

/**
 * The most operands one `||` chain joins: a left-deep chain of thousands (an object of that many
 * members) would exhaust the server's stack while parsing; longer ones are grouped, so the
 * nesting grows with the logarithm of the length.
 */
const MAX_CHAIN = 64;

/** A part of a concatenation building JSON text: a constant, or an SQL expression of type text. */
type Piece = { kind: "literal"; text: string } | { kind: "sql"; sql: string };

/** Planner-chosen constants only (encoding names and the like): plain words. */
const SAFE_TEXT = /^[A-Za-z0-9_]*$/;

export function renderSql(root: Select): Statement {
  const renderer = new Renderer();
  const sql = renderer.select(root);
  return { sql, params: renderer.params, nodes: renderer.nodes, types: renderer.nodes.map((n) => bindTypeName(n.type)) };
}

/** One statement's rendering: numbers each parameter node once, in order of appearance. */
class Renderer {
  readonly params: (string | null)[] = [];
  readonly nodes: ParamNode[] = [];
  private readonly numbers = new Map<ParamNode, number>();

  private renderParam(p: ParamNode): string {
    let n = this.numbers.get(p);
    if (n === undefined) {
      this.params.push(p.value);
      this.nodes.push(p);
      n = this.params.length;
      this.numbers.set(p, n);
    }
    return "$" + n + "::" + renderType(p.type);
  }

  expr(e: Expr): string {
    switch (e.kind) {
      case "column":
        return quoteIdent(e.table) + "." + quoteIdent(e.name);
      case "field":
        return "(" + this.expr(e.expr) + ")." + quoteIdent(e.name);
      case "row":
        return quoteIdent(e.table);
      case "param":
        return this.renderParam(e);
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
      case "enumLiteral":
        invariant(e.type.enum === true, "an enum literal must be of an enum type");
        return quoteLiteral(e.text) + "::" + renderType(e.type);
      case "call": {
        const name = (e.schema === null ? "" : quoteIdent(e.schema) + ".") + functionName(e.name, e.schema);
        const order = e.orderBy && e.orderBy.length > 0 ? " order by " + this.orderList(e.orderBy) : "";
        const filter = e.filter ? " filter (where " + this.expr(e.filter) + ")" : "";
        return name + "(" + e.args.map((a) => this.expr(a)).join(", ") + order + ")" + filter;
      }
      case "countStar":
        return "count(*)";
      case "rowNumber":
        return "row_number() over (order by " + this.orderList(e.orderBy) + ")";
      case "binary":
        return "(" + this.expr(e.left) + " " + e.op + " " + this.expr(e.right) + ")";
      case "and":
        if (e.items.length === 0) return "true";
        return "(" + e.items.map((x) => this.expr(x)).join(" and ") + ")";
      case "or":
        if (e.items.length === 0) return "false";
        return "(" + e.items.map((x) => this.expr(x)).join(" or ") + ")";
      case "not":
        return "(not " + this.expr(e.expr) + ")";
      case "isNull":
        return "(" + this.expr(e.expr) + (e.negated ? " is not null)" : " is null)");
      case "cast":
        return "(" + this.expr(e.expr) + ")::" + renderType(e.type);
      case "case":
        return (
          "case " +
          e.whens.map((w) => "when " + this.expr(w.when) + " then " + this.expr(w.then)).join(" ") +
          " else " +
          this.expr(e.else) +
          " end"
        );
      case "subquery":
        return "(" + this.select(e.select) + ")";
      case "exists":
        return "exists(" + this.select(e.select) + ")";
      case "anyOf":
        return "(" + this.expr(e.expr) + " = any(" + this.expr(e.array) + "))";
      case "element":
        return "(" + this.expr(e.array) + ")[" + this.expr(e.index) + "]";
      case "jsonObject":
      case "jsonAgg":
      case "jsonValue":
      case "jsonSubquery":
        return this.json(e);
      default: {
        return unreachable(e, "expression");
      }
    }
  }

  /** JSON text: the constants between values merged, as one (grouped) `||` chain. */
  private json(e: JsonExpr): string {
    const pieces: Piece[] = [];
    this.jsonPieces(e, pieces);
    const only = pieces.length === 1 ? pieces[0]! : null;
    // A lone constant (an object of empty objects) is typed, or string_agg could not resolve it.
    if (only) return only.kind === "literal" ? quoteLiteral(only.text) + "::text" : only.sql;
    return "(" + concatenation(pieces.map((p) => (p.kind === "literal" ? quoteLiteral(p.text) : p.sql))) + ")";
  }

  private jsonPieces(e: JsonExpr, out: Piece[]): void {
    const literal = (text: string): void => {
      const last = out[out.length - 1];
      if (last?.kind === "literal") last.text += text;
      else out.push({ kind: "literal", text });
    };
    switch (e.kind) {
      case "jsonObject":
        // Members are inlined, so the constants of nested objects join their parent's.
        literal("{");
        e.entries.forEach((en, i) => {
          literal((i === 0 ? "" : ",") + jsonKey(en.key) + ":");
          this.jsonPieces(en.value, out);
        });
        literal("}");
        return;
      case "jsonAgg": {
        const order = e.orderBy.length > 0 ? " order by " + this.orderList(e.orderBy) : "";
        const filter = e.filter ? " filter (where " + this.expr(e.filter) + ")" : "";
        const items = "string_agg(" + this.json(e.item) + ", ','" + order + ")" + filter;
        out.push({ kind: "sql", sql: "coalesce('[' || " + items + " || ']', '[]')" });
        return;
      }
      case "jsonValue": {
        const value = this.expr(e.expr);
        const text = e.via === "text" ? "(" + value + ")::text" : "to_json(" + value + ")::text";
        out.push({ kind: "sql", sql: "coalesce(" + text + ", 'null')" });
        return;
      }
      case "jsonSubquery":
        invariant(e.select.columns.length === 1 && isJson(e.select.columns[0]!.expr), "a JSON subquery selects one JSON value");
        out.push({ kind: "sql", sql: "coalesce((" + this.select(e.select) + "), 'null')" });
        return;
      default:
        unreachable(e, "JSON expression");
    }
  }

  private orderList(items: OrderItem[]): string {
    return items.map((o) => this.expr(o.expr) + " " + o.direction + " nulls " + o.nulls).join(", ");
  }

  private from(f: FromItem): string {
    switch (f.kind) {
      case "table":
        return quoteIdent(f.schema) + "." + quoteIdent(f.name) + " as " + quoteIdent(f.alias);
      case "subquery":
        return "(" + this.select(f.select) + ") as " + quoteIdent(f.alias);
      case "cte":
        return quoteIdent(f.name) + " as " + quoteIdent(f.alias);
      case "function":
        return (
          quoteIdent(f.schema) +
          "." +
          quoteIdent(f.name) +
          "(" +
          f.args.map((a) => (a.name === null ? "" : quoteIdent(a.name) + " => ") + this.expr(a.value)).join(", ") +
          ") as " +
          quoteIdent(f.alias)
        );
      default: {
        return unreachable(f, "from item");
      }
    }
  }

  private returning(r: Returning): string {
    return r.length === 0 ? "" : " returning " + r.map((c) => this.expr(c.expr) + " as " + quoteIdent(c.alias)).join(", ");
  }

  private onConflict(c: OnConflict | undefined): string {
    if (c === undefined) return "";
    const clause = " on conflict on constraint " + quoteIdent(c.constraint);
    if (c.set.length === 0) return clause + " do nothing";
    const set = c.set.map((name) => quoteIdent(name) + " = excluded." + quoteIdent(name)).join(", ");
    return clause + " do update set " + set + (c.where ? " where " + this.expr(c.where) : "");
  }

  private write(w: WriteStatement): string {
    const target = quoteIdent(w.schema) + "." + quoteIdent(w.table) + " as " + quoteIdent(w.alias);
    switch (w.kind) {
      case "insert": {
        invariant(w.rows.length > 0, "insert needs at least one row");
        const columns = w.columns.length === 0 ? "" : " (" + w.columns.map(quoteIdent).join(", ") + ")";
        // Objects that set no column at all are rows of defaults; `default values` makes only one,
        // and a column-less select makes as many as asked.
        const values =
          w.columns.length > 0
            ? " values " + w.rows.map((row) => "(" + row.map((v) => (v === null ? "default" : this.expr(v))).join(", ") + ")").join(", ")
            : w.rows.length === 1
              ? " default values"
              : " select from generate_series(1, " + this.expr({ kind: "int", value: w.rows.length }) + ")";
        return "insert into " + target + columns + values + this.onConflict(w.onConflict) + this.returning(w.returning);
      }
      case "update":
        invariant(w.set.length > 0, "update needs at least one column");
        return (
          "update " +
          target +
          " set " +
          w.set.map((a) => quoteIdent(a.column) + " = " + this.expr(a.value)).join(", ") +
          (w.where ? " where " + this.expr(w.where) : "") +
          this.returning(w.returning)
        );
      case "delete":
        return "delete from " + target + (w.where ? " where " + this.expr(w.where) : "") + this.returning(w.returning);
      default:
        return unreachable(w, "write statement");
    }
  }

  select(s: Select): string {
    invariant(s.columns.length > 0, "select needs at least one column");
    const ctes = s.with && s.with.length > 0 ? "with " + s.with.map((c) => quoteIdent(c.name) + " as (" + this.write(c.statement) + ")").join(", ") + " " : "";
    let out = ctes + "select " + s.columns.map((c) => this.expr(c.expr) + " as " + quoteIdent(c.alias)).join(", ");
    if (s.from) out += " from " + this.from(s.from);
    if (s.where) out += " where " + this.expr(s.where);
    if (s.orderBy.length > 0) out += " order by " + this.orderList(s.orderBy);
    if (s.limit) out += " limit " + this.expr(s.limit);
    if (s.offset) out += " offset " + this.expr(s.offset);
    return out;
  }
}

function isJson(e: Expr): e is JsonExpr {
  return e.kind === "jsonObject" || e.kind === "jsonAgg" || e.kind === "jsonValue" || e.kind === "jsonSubquery";
}

/** `a || b || ...`, grouped in parentheses past MAX_CHAIN operands. */
function concatenation(parts: string[]): string {
  if (parts.length <= MAX_CHAIN) return parts.join(" || ");
  const groups: string[] = [];
  for (let i = 0; i < parts.length; i += MAX_CHAIN) groups.push("(" + parts.slice(i, i + MAX_CHAIN).join(" || ") + ")");
  return concatenation(groups);
}

/** Lone surrogates and NUL have no JSON text PostgreSQL's jsonb accepts. */
const UNWRITABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A member name as JSON text (the planner's names are GraphQL names; anything else is escaped too). */
function jsonKey(key: string): string {
  invariant(!UNWRITABLE.test(key), "JSON key must be writable text");
  return JSON.stringify(key);
}

/** Built-in SQL functions the planner calls are bare lowercase names; others are quoted. */
function functionName(name: string, schema: string | null): string {
  if (schema === null) {
    invariant(/^[a-z_][a-z0-9_]*$/.test(name), "built-in function name must be plain: " + name);
    return name;
  }
  return quoteIdent(name);
}

/**
 * The type a parameter of type `t` is bound as. Text, cast in the statement, except an enum's
 * label, bound as the enum: text to enum goes through enum_in, a stable function, which a plan
 * for the given values (a prepared statement's first executions, or any it finds cheaper) keeps
 * as a per-row filter instead of a constant, converting the label again on every row it scans.
 * The statement's cast of an enum to itself then costs nothing.
 */
function bindTypeName(t: SqlType): string {
  return t.enum === true && !t.array ? renderType(t) : "text";
}

export function renderType(t: SqlType): string {
  return (t.schema === null ? "" : quoteIdent(t.schema) + ".") + quoteIdent(t.name) + (t.array ? "[]" : "");
}

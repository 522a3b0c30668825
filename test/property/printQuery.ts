// Property test support: a ConnectionModel → GraphQL text (filter and orderBy as literals or as
// variables) with the cursors the runner picked.
import { Names, type ColumnFilter, type ConnectionModel, type FilterModel, type NodeSelection, type OrderModel } from "./queryModel";
import { SCHEMA, type SchemaModel, type TableModel } from "./schemaModel";

/** An enum value: printed bare in literals, as a string in variables. */
export class EnumValue {
  constructor(readonly name: string) {}
}

export type Value = null | boolean | number | string | EnumValue | Value[] | { [key: string]: Value };

function scalar(cf: ColumnFilter, text: string): Value {
  switch (cf.column.type) {
    case "int":
    case "float":
      return Number(text);
    case "bool":
      return text === "true";
    case "enum":
      return new EnumValue(text);
    default:
      return text;
  }
}

/** The node id of the row with these key texts, its JSON written by hand so no digit is lost. */
export function nodeIdOf(table: TableModel, key: string[]): string {
  const items = table.primaryKey.map((k, i) => {
    const type = table.columns.find((c) => c.name === k)!.type;
    return type === "int" || type === "bigint" ? key[i]! : JSON.stringify(key[i]);
  });
  return Buffer.from(`[${JSON.stringify(SCHEMA)}, ${JSON.stringify(table.name)}, ${items.join(", ")}]`).toString("base64");
}

export function filterValue(names: Names, table: TableModel, f: FilterModel): Value {
  const out: { [key: string]: Value } = {};
  for (const cf of f.columns) {
    const operand: Value =
      cf.op === "is" ? new EnumValue(cf.value as string) : Array.isArray(cf.value) ? cf.value.map((v) => scalar(cf, v)) : scalar(cf, cf.value);
    const key = names.field(cf.column.name);
    out[key] = { ...((out[key] as object) ?? {}), [cf.op]: operand };
  }
  if (f.nodeId) out["nodeId"] = { eq: nodeIdOf(table, f.nodeId) };
  if (f.and) out["and"] = f.and.map((x) => filterValue(names, table, x));
  if (f.or) out["or"] = f.or.map((x) => filterValue(names, table, x));
  if (f.not) out["not"] = filterValue(names, table, f.not);
  for (const r of f.related ?? []) {
    const target = r.relation.table;
    out[r.relation.field] =
      "filter" in r ? filterValue(names, target, r.filter) : Object.fromEntries(r.quantifiers.map((q) => [q.quantifier, filterValue(names, target, q.filter)]));
  }
  return out;
}

function orderValue(names: Names, order: OrderModel[]): Value {
  return order.map((o) => {
    let entry: Value = { [names.field(o.column.name)]: new EnumValue(o.direction) };
    for (const step of [...(o.via ?? [])].reverse()) entry = { [step.field]: entry };
    return entry as { [key: string]: Value };
  });
}

export function printLiteral(v: Value): string {
  if (v instanceof EnumValue) return v.name;
  if (Array.isArray(v)) return `[${v.map(printLiteral).join(", ")}]`;
  if (v !== null && typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${k}: ${printLiteral(x)}`).join(", ")}}`;
  return JSON.stringify(v);
}

export function toVariable(v: Value): unknown {
  if (v instanceof EnumValue) return v.name;
  if (Array.isArray(v)) return v.map(toVariable);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toVariable(x)]));
  return v;
}

export interface PrintedQuery {
  text: string;
  variables: Record<string, unknown>;
}

/** Prints connections; `cursors` maps the after/before row indexes of a connection to cursors. */
export class QueryPrinter {
  readonly names: Names;
  private readonly declarations: string[] = [];
  readonly variables: Record<string, unknown> = {};

  constructor(
    readonly model: SchemaModel,
    private readonly useVariables: boolean,
    private readonly cursorOf: (c: ConnectionModel, index: number) => string,
  ) {
    this.names = new Names(model);
  }

  operation(body: string, keyword = "query"): PrintedQuery {
    const decl = this.declarations.length > 0 ? `(${this.declarations.join(", ")})` : "";
    return { text: `${keyword}${decl} { ${body} }`, variables: this.variables };
  }

  private arg(name: string, type: string, value: Value): string {
    if (!this.useVariables) return `${name}: ${printLiteral(value)}`;
    const variable = `v${this.declarations.length}`;
    this.declarations.push(`$${variable}: ${type}`);
    this.variables[variable] = toVariable(value);
    return `${name}: $${variable}`;
  }

  args(c: ConnectionModel): string {
    const type = this.names.type(c.table);
    const out: string[] = [];
    if (c.filter) out.push(this.arg("filter", `${type}Filter`, filterValue(this.names, c.table, c.filter)));
    if (c.orderBy.length > 0) out.push(this.arg("orderBy", `[${type}OrderBy!]`, orderValue(this.names, c.orderBy)));
    const p = c.paging;
    if (p.first !== undefined) out.push(this.arg("first", "Int", p.first));
    if (p.last !== undefined) out.push(this.arg("last", "Int", p.last));
    if (p.offset !== undefined) out.push(this.arg("offset", "Int", p.offset));
    if (p.after !== undefined) out.push(this.arg("after", "Cursor", this.cursorOf(c, p.after)));
    if (p.before !== undefined) out.push(this.arg("before", "Cursor", this.cursorOf(c, p.before)));
    return out.length > 0 ? `(${out.join(", ")})` : "";
  }

  connection(field: string, c: ConnectionModel): string {
    const parts: string[] = [];
    if (c.totalCount) parts.push("totalCount");
    if (c.pageInfo.length > 0) parts.push(`pageInfo { ${c.pageInfo.join(" ")} }`);
    if (c.edges) parts.push(`edges { ${c.edges.cursor ? "cursor " : ""}node { ${this.node(c.edges.node)} } }`);
    if (c.aggregate) {
      const ops = c.aggregate.ops.map((o) => `${o.op} { ${o.columns.map((col) => this.names.field(col.name)).join(" ")} }`);
      parts.push(`aggregate { ${c.aggregate.count ? "count " : ""}${ops.join(" ")} }`);
    }
    return `${field}${this.args(c)} { ${parts.join(" ")} }`;
  }

  node(n: NodeSelection): string {
    const parts = n.columns.map((c) => this.names.field(c.name));
    if (n.nodeId) parts.push("nodeId");
    if (n.typename) parts.push("__typename");
    for (const r of n.relations) {
      parts.push(r.kind === "many" ? this.connection(r.field, r.connection) : `${r.field} { ${this.node(r.selection)} }`);
    }
    return parts.join(" ");
  }
}

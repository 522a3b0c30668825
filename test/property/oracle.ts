// Property test support: the expected answer of a ConnectionModel, computed with plain SQL written
// here (filter, order, correlation) and the paging arithmetic of the Relay spec as pg_graphql
// documents it — independent of the resolver's planner and SQL.
import type pg from "pg";
import { Names, type ColumnFilter, type ConnectionModel, type FilterModel, type NodeSelection } from "./queryModel";
import { ident, SCHEMA, SQL_TYPES, sqlLiteral, type ColumnModel, type SchemaModel, type TableModel } from "./schemaModel";

export const DEFAULT_MAX_ROWS = 30;

export interface OracleRow {
  /** Every column as text (null for NULL). */
  raw: Record<string, string | null>;
  /** Every column as the API prints it. */
  out: Record<string, unknown>;
  /** The JSON array a nodeId encodes. */
  nodeId: unknown[];
}

function columnFilterSql(cf: ColumnFilter): string {
  const col = `r.${ident(cf.column.name)}`;
  const lit = (v: string) => sqlLiteral(v, cf.column.type);
  const v = cf.value;
  switch (cf.op) {
    case "eq":
      return `${col} = ${lit(v as string)}`;
    case "neq":
      return `${col} <> ${lit(v as string)}`;
    case "lt":
      return `${col} < ${lit(v as string)}`;
    case "lte":
      return `${col} <= ${lit(v as string)}`;
    case "gt":
      return `${col} > ${lit(v as string)}`;
    case "gte":
      return `${col} >= ${lit(v as string)}`;
    case "in":
      return `${col} = any(array[${(v as string[]).map(lit).join(", ")}]::${SQL_TYPES[cf.column.type]}[])`;
    case "is":
      return v === "NULL" ? `${col} is null` : `${col} is not null`;
    case "startsWith":
      return `starts_with(${col}, ${lit(v as string)})`;
    case "like":
      return `${col} like ${lit(v as string)}`;
    case "ilike":
      return `${col} ilike ${lit(v as string)}`;
    case "regex":
      return `${col} ~ ${lit(v as string)}`;
    case "iregex":
      return `${col} ~* ${lit(v as string)}`;
  }
}

/** The conditions of a filter object; empty filters (and empty and/or/not) constrain nothing. */
export function filterConditions(f: FilterModel, table: TableModel): string[] {
  const out = f.columns.map(columnFilterSql);
  if (f.nodeId) out.push(`(${equalities(table.primaryKey, table, f.nodeId).join(" and ")})`);
  for (const item of f.and ?? []) {
    const c = filterConditions(item, table);
    if (c.length > 0) out.push(`(${c.join(" and ")})`);
  }
  const alternatives = (f.or ?? []).map((x) => filterConditions(x, table)).filter((c) => c.length > 0);
  if (alternatives.length > 0) out.push(`(${alternatives.map((c) => `(${c.join(" and ")})`).join(" or ")})`);
  if (f.not) {
    const c = filterConditions(f.not, table);
    if (c.length > 0) out.push(`not (${c.join(" and ")})`);
  }
  return out;
}

function outputSql(c: ColumnModel): string {
  const col = `r.${ident(c.name)}`;
  return c.type === "bigint" || c.type === "numeric" || c.type === "jsonb" ? `to_jsonb(${col}::text)` : `to_jsonb(${col})`;
}

/** Rows of `table` matching `where` in the connection's order (primary key last, ascending). */
export async function oracleRows(client: pg.Client, table: TableModel, where: string[], c: ConnectionModel | null): Promise<OracleRow[]> {
  const raw = table.columns.map((col) => `'${col.name}', r.${ident(col.name)}::text`).join(", ");
  const out = table.columns.map((col) => `'${col.name}', ${outputSql(col)}`).join(", ");
  const nodeId = [`'${SCHEMA}'`, `'${table.name}'`, ...table.primaryKey.map((k) => `r.${ident(k)}`)].join(", ");
  const order = (c?.orderBy ?? []).map((o) => {
    const [dir, nulls] = o.direction.startsWith("Asc") ? ["asc", o.direction.slice(3)] : ["desc", o.direction.slice(4)];
    return `r.${ident(o.column.name)} ${dir} ${nulls === "NullsFirst" ? "nulls first" : "nulls last"}`;
  });
  order.push(...table.primaryKey.map((k) => `r.${ident(k)} asc`));
  const conditions = [...where, ...(c?.filter ? filterConditions(c.filter, table) : [])];
  const sql = `select jsonb_build_object(${raw}) as raw, jsonb_build_object(${out}) as out, jsonb_build_array(${nodeId}) as node_id
    from ${SCHEMA}.${ident(table.name)} as r ${conditions.length > 0 ? `where ${conditions.join(" and ")}` : ""} order by ${order.join(", ")}`;
  const { rows } = await client.query(sql);
  return rows.map((r) => ({ raw: r.raw, out: r.out, nodeId: r.node_id }));
}

export interface Page {
  start: number;
  end: number;
  hasPreviousPage: boolean;
  hasNextPage: boolean;
}

/** Which slice of the matched rows a connection answers, and whether rows lie beyond it. */
export function pageOf(c: ConnectionModel, count: number): Page {
  const maxRows = c.table.maxRows ?? DEFAULT_MAX_ROWS;
  const p = c.paging;
  const size = Math.min(p.first ?? p.last ?? maxRows, maxRows);
  let start: number;
  let end: number;
  if (p.last !== undefined || p.before !== undefined) {
    end = p.before ?? count;
    start = Math.max(0, end - size);
  } else {
    start = Math.min(count, (p.after === undefined ? 0 : p.after + 1) + (p.offset ?? 0));
    end = Math.min(count, start + size);
  }
  return { start, end, hasPreviousPage: start > 0, hasNextPage: end < count };
}

/** The columns of a connection's order, as its cursors carry their values: the key last. */
function orderColumns(c: ConnectionModel): string[] {
  return [...c.orderBy.map((o) => o.column.name), ...c.table.primaryKey];
}

/**
 * Where a cursor taken from row `at` of `rows` stands in them. A full cursor stands at its row; a
 * cursor with only its first k values ties with every row equal to that row on the order's first
 * k columns (nulls equal to nulls), and pages strictly past them: `after` it stands at the last
 * such row, `before` it at the first.
 */
function cursorPosition(c: ConnectionModel, rows: OracleRow[], at: number): number {
  const k = c.paging.cursorLength;
  if (k === undefined) return at;
  const columns = orderColumns(c).slice(0, k);
  const ties = (i: number) => columns.every((col) => rows[i]!.raw[col] === rows[at]!.raw[col]);
  let i = at;
  if (c.paging.after !== undefined) while (i + 1 < rows.length && ties(i + 1)) i++;
  else while (i > 0 && ties(i - 1)) i--;
  return i;
}

/**
 * A cursor restated as a position in the matched list: past the rows it ties with when shortened,
 * and, when taken from the unfiltered list, `after` the last matched row at or before that
 * position, `before` the first matched row after it.
 */
async function cursorInMatched(client: pg.Client, c: ConnectionModel, matched: OracleRow[], where: string[]): Promise<ConnectionModel> {
  const p = c.paging;
  const taken = p.after ?? p.before;
  if (taken === undefined) return c;
  const withCursorAt = (index: number): ConnectionModel => ({ ...c, paging: p.after !== undefined ? { ...p, after: index } : { ...p, before: index } });
  if (!p.unfilteredCursor) return withCursorAt(cursorPosition(c, matched, taken));
  const all = await oracleRows(client, c.table, where, { ...c, filter: null });
  const position = new Map(all.map((r, i) => [JSON.stringify(r.nodeId), i]));
  const cursorAt = cursorPosition(c, all, taken);
  const atOrBefore = matched.filter((r) => position.get(JSON.stringify(r.nodeId))! <= cursorAt).length;
  const before = matched.filter((r) => position.get(JSON.stringify(r.nodeId))! < cursorAt).length;
  return withCursorAt(p.after !== undefined ? atOrBefore - 1 : before);
}

/** Correlation of a related table's rows with one row of the parent. */
function equalities(columns: string[], table: TableModel, values: (string | null)[]): string[] {
  return columns.map((name, i) => {
    const col = table.columns.find((x) => x.name === name)!;
    return `r.${ident(name)} = ${sqlLiteral(values[i] ?? null, col.type)}`;
  });
}

/** The expected JSON of a connection (cursors as the marker "<cursor>"). */
export async function expectedConnection(client: pg.Client, model: SchemaModel, c: ConnectionModel, where: string[] = []): Promise<unknown> {
  const names = new Names(model);
  const rows = await oracleRows(client, c.table, where, c);
  const page = pageOf(await cursorInMatched(client, c, rows, where), rows.length);
  const slice = rows.slice(page.start, page.end);
  const out: Record<string, unknown> = {};
  if (c.totalCount) out["totalCount"] = rows.length;
  if (c.pageInfo.length > 0) {
    const all: Record<string, unknown> = {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: slice.length > 0 ? "<cursor>" : null,
      endCursor: slice.length > 0 ? "<cursor>" : null,
    };
    out["pageInfo"] = Object.fromEntries(c.pageInfo.map((f) => [f, all[f]]));
  }
  if (c.edges) {
    const edges = [];
    for (const row of slice) {
      const node = await expectedNode(client, model, c.table, c.edges.node, row);
      edges.push(c.edges.cursor ? { cursor: "<cursor>", node } : { node });
    }
    out["edges"] = edges;
  }
  if (c.aggregate) out["aggregate"] = await expectedAggregate(client, names, c, where);
  return out;
}

async function expectedNode(client: pg.Client, model: SchemaModel, table: TableModel, n: NodeSelection, row: OracleRow): Promise<unknown> {
  const names = new Names(model);
  const out: Record<string, unknown> = {};
  for (const c of n.columns) out[names.field(c.name)] = row.out[c.name];
  if (n.nodeId) out["nodeId"] = row.nodeId;
  if (n.typename) out["__typename"] = names.type(table);
  const key = table.primaryKey.map((k) => row.raw[k] ?? null);
  for (const r of n.relations) {
    if (r.kind === "toOne") {
      const values = r.localColumns.map((col) => row.raw[col] ?? null);
      const found = values.some((v) => v === null) ? [] : await oracleRows(client, r.table, equalities(r.table.primaryKey, r.table, values), null);
      out[r.field] = found[0] ? await expectedNode(client, model, r.table, r.selection, found[0]) : null;
    } else if (r.kind === "oneToOne") {
      const found = await oracleRows(client, r.table, equalities(r.foreignColumns, r.table, key), null);
      out[r.field] = found[0] ? await expectedNode(client, model, r.table, r.selection, found[0]) : null;
    } else {
      out[r.field] = await expectedConnection(client, model, r.connection, equalities(r.foreignColumns, r.table, key));
    }
  }
  return out;
}

async function expectedAggregate(client: pg.Client, names: Names, c: ConnectionModel, where: string[]): Promise<unknown> {
  const agg = c.aggregate!;
  const exprs: string[] = [];
  for (const o of agg.ops) {
    const inner = o.columns.map((col) => `'${col.name}', (${o.op}(r.${ident(col.name)}))::text`).join(", ");
    exprs.push(`'${o.op}', jsonb_build_object(${inner})`);
  }
  const conditions = [...where, ...(c.filter ? filterConditions(c.filter, c.table) : [])];
  const sql = `select count(*)::int as count, jsonb_build_object(${exprs.join(", ")}) as ops
    from ${SCHEMA}.${ident(c.table.name)} as r ${conditions.length > 0 ? `where ${conditions.join(" and ")}` : ""}`;
  const { rows } = await client.query(sql);
  const out: Record<string, unknown> = {};
  if (agg.count) out["count"] = rows[0].count;
  for (const o of agg.ops) {
    out[o.op] = Object.fromEntries(o.columns.map((col) => [names.field(col.name), { approx: rows[0].ops[o.op][col.name] }]));
  }
  return out;
}

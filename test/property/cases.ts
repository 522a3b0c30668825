// Property test support: one random case of each kind (a connection query, a walk through a whole
// collection with cursors, a node lookup, a mutation in a rolled-back transaction), each checked
// against the oracle or an invariant. A case returns null when it holds, else what differed.
import type pg from "pg";
import type { ApiSchema } from "../../src/schema/apiSchema";
import { resolveWithApi } from "../read/nodeResolve";
import { firstDifference } from "./compare";
import { Coverage } from "./coverage";
import { expectedConnection, oracleRows, type OracleRow } from "./oracle";
import { EnumValue, printLiteral, QueryPrinter, type PrintedQuery, type Value } from "./printQuery";
import { Names, randomConnection, randomFilter, randomNode, randomOrder, type ConnectionModel } from "./queryModel";
import { Random } from "./random";
import { randomValue, type ColumnModel, type SchemaModel, type TableModel } from "./schemaModel";

export interface CaseContext {
  client: pg.Client;
  api: ApiSchema;
  model: SchemaModel;
  rnd: Random;
  coverage: Coverage;
  /** Requests go through graphql.resolve in the database (PLV8) rather than the Node pipeline. */
  viaExtension: boolean;
  /** The last request made, printed with a failure. */
  log: PrintedQuery[];
}

export type CaseResult = string | null;

async function ask(ctx: CaseContext, q: PrintedQuery): Promise<any> {
  ctx.log.push(q);
  if (!ctx.viaExtension) return (await resolveWithApi(ctx.client, ctx.api, q.text, q.variables)).response;
  const { rows } = await ctx.client.query("select graphql.resolve($1, $2::jsonb) as r", [q.text, JSON.stringify(q.variables)]);
  return rows[0].r;
}

function ok(answer: any): string | null {
  return answer.errors ? `errors: ${JSON.stringify(answer.errors)}` : null;
}

/** Cursors of the rows a connection matches (in order), as the resolver hands them out. */
async function cursorsOf(ctx: CaseContext, c: ConnectionModel, unfiltered: boolean): Promise<string[] | string> {
  const probe: ConnectionModel = { ...c, ...(unfiltered ? { filter: null } : {}), paging: {}, totalCount: false, pageInfo: [], aggregate: null, edges: { cursor: true, node: { columns: [c.table.columns[0]!], nodeId: false, typename: false, relations: [] } } };
  const printer = new QueryPrinter(ctx.model, false, () => "");
  const answer = await ask(ctx, printer.operation(printer.connection(new Names(ctx.model).collection(c.table), probe)));
  return ok(answer) ?? answer.data[new Names(ctx.model).collection(c.table)].edges.map((e: any) => e.cursor);
}

export async function connectionCase(ctx: CaseContext, withCursor: boolean): Promise<CaseResult> {
  const { rnd, model } = ctx;
  const table = rnd.pick(model.tables);
  const c = randomConnection(rnd, model, table, 0, true);
  let cursors: string[] = [];
  if (withCursor) {
    const unfilteredCursor = c.filter !== null && rnd.chance(0.4);
    const got = await cursorsOf(ctx, c, unfilteredCursor);
    if (typeof got === "string") return got;
    cursors = got;
    if (cursors.length > 0) {
      const index = rnd.int(0, cursors.length - 1);
      const backward = rnd.chance(0.5);
      c.paging = backward
        ? { before: index, ...(rnd.chance(0.7) ? { last: rnd.int(0, 5) } : {}) }
        : { after: index, ...(rnd.chance(0.7) ? { first: rnd.int(0, 5) } : {}), ...(rnd.chance(0.3) ? { offset: rnd.int(0, 3) } : {}) };
      if (unfilteredCursor) c.paging.unfilteredCursor = true;
      // A cursor with only its first values (at least one, fewer than the order's columns).
      const values = c.orderBy.length + table.primaryKey.length;
      if (values > 1 && rnd.chance(0.3)) c.paging.cursorLength = rnd.int(1, values - 1);
    }
  }
  ctx.coverage.connection(c, 0);
  const length = c.paging.cursorLength;
  const printer = new QueryPrinter(model, rnd.chance(0.5), (_c, i) => (length === undefined ? cursors[i]! : shortened(cursors[i]!, length)));
  const field = new Names(model).collection(table);
  const answer = await ask(ctx, printer.operation(printer.connection(field, c)));
  const failed = ok(answer);
  if (failed) return failed;
  const expected = await expectedConnection(ctx.client, model, c);
  return firstDifference(expected, answer.data[field], `$.${field}`) ?? pageCursorsAgree(answer.data[field]);
}

/**
 * A cursor with only its first `length` values. The JSON array is cut at its top-level commas
 * rather than parsed and printed again, which would round bigint keys past 2^53.
 */
export function shortened(cursor: string, length: number): string {
  const text = Buffer.from(cursor, "base64").toString("utf8");
  const cuts: number[] = [];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") depth--;
    else if (ch === "," && depth === 1) cuts.push(i);
  }
  const prefix = length <= cuts.length ? text.slice(0, cuts[length - 1]) + "]" : text;
  return Buffer.from(prefix).toString("base64");
}

/** startCursor and endCursor are the cursors of the first and last edge. */
function pageCursorsAgree(conn: any): CaseResult {
  const edges = conn.edges;
  if (!conn.pageInfo || !edges || edges.length === 0 || edges[0].cursor === undefined) return null;
  if (conn.pageInfo.startCursor !== undefined && conn.pageInfo.startCursor !== edges[0].cursor) return "pageInfo.startCursor is not the first edge's cursor";
  if (conn.pageInfo.endCursor !== undefined && conn.pageInfo.endCursor !== edges[edges.length - 1].cursor) return "pageInfo.endCursor is not the last edge's cursor";
  return null;
}

/** Paging forward (or backward) with cursors through a whole collection gives every row once, in order. */
export async function walkCase(ctx: CaseContext): Promise<CaseResult> {
  const { rnd, model } = ctx;
  const names = new Names(model);
  const table = rnd.pick(model.tables);
  const backward = rnd.chance(0.5);
  const size = rnd.int(1, 4);
  const base = randomConnection(rnd, model, table, 0, false);
  base.filter = rnd.chance(0.5) ? randomFilter(rnd, table, 0) : null;
  base.orderBy = randomOrder(rnd, table);
  ctx.coverage.add(backward ? "walk:backward" : "walk:forward");
  const expected = (await oracleRows(ctx.client, table, [], base)).map((r) => JSON.stringify(r.nodeId));
  const seen: string[] = [];
  let cursor: string | null = null;
  const field = names.collection(table);
  for (let step = 0; step <= expected.length + 1; step++) {
    const printer = new QueryPrinter(model, true, () => cursor!);
    const page: ConnectionModel = { ...base, paging: backward ? { last: size, ...(cursor ? { before: 0 } : {}) } : { first: size, ...(cursor ? { after: 0 } : {}) }, totalCount: false, pageInfo: ["hasNextPage", "hasPreviousPage", "startCursor", "endCursor"], aggregate: null, edges: { cursor: false, node: { columns: [], nodeId: true, typename: false, relations: [] } } };
    const answer = await ask(ctx, printer.operation(printer.connection(field, page)));
    const failed = ok(answer);
    if (failed) return failed;
    const conn = answer.data[field];
    const ids = conn.edges.map((e: any) => JSON.stringify(JSON.parse(Buffer.from(e.node.nodeId, "base64").toString("utf8"))));
    if (backward) seen.unshift(...ids);
    else seen.push(...ids);
    const more = backward ? conn.pageInfo.hasPreviousPage : conn.pageInfo.hasNextPage;
    if (!more) break;
    cursor = backward ? conn.pageInfo.startCursor : conn.pageInfo.endCursor;
    if (cursor === null) return "a page that says more rows follow has no cursor";
  }
  return firstDifference(expected, seen, `walk ${backward ? "backward" : "forward"} by ${size}`);
}

/** node(nodeId:) answers the row the id names. */
export async function nodeCase(ctx: CaseContext): Promise<CaseResult> {
  const { rnd, model } = ctx;
  const names = new Names(model);
  const table = rnd.pick(model.tables);
  const rows = await oracleRows(ctx.client, table, [], null);
  if (rows.length === 0) return null;
  const row = rnd.pick(rows);
  const selection = randomNode(rnd, model, table, 1);
  ctx.coverage.add("node:lookup");
  const printer = new QueryPrinter(model, false, () => "");
  const id = Buffer.from(JSON.stringify(row.nodeId)).toString("base64");
  const answer = await ask(ctx, { text: `query($id: ID!) { node(nodeId: $id) { ... on ${names.type(table)} { ${printer.node(selection)} } } }`, variables: { id } });
  const failed = ok(answer);
  if (failed) return failed;
  const expected = Object.fromEntries(selection.columns.map((c) => [names.field(c.name), row.out[c.name]]));
  const actual = Object.fromEntries(selection.columns.map((c) => [names.field(c.name), answer.data.node?.[names.field(c.name)]]));
  return firstDifference(expected, actual, "$.node");
}

function inputValue(column: ColumnModel, text: string): Value {
  if (column.type === "int" || column.type === "float") return Number(text);
  if (column.type === "enum") return new EnumValue(text);
  if (column.type === "bool") return text === "true";
  return text;
}

function keyOf(table: TableModel, row: Record<string, Value>): string {
  return JSON.stringify(table.primaryKey.map((k) => String(row[k])));
}

/** Columns a mutation may set: not the key, not a foreign key. */
function settable(table: TableModel): ColumnModel[] {
  const fkColumns = new Set(table.foreignKeys.flatMap((fk) => fk.columns));
  return table.columns.filter((c) => !table.primaryKey.includes(c.name) && !fkColumns.has(c.name) && c.type !== "jsonb");
}

/** An update, delete or insert inside a transaction that is rolled back afterwards. */
export async function mutationCase(ctx: CaseContext): Promise<CaseResult> {
  const { rnd, model, client } = ctx;
  const tables = model.tables.filter((t) => !t.viewOf);
  const table = rnd.pick(tables);
  const kind = rnd.pick(["update", "delete", "insert"] as const);
  await client.query("begin");
  try {
    return await runMutation(ctx, table, kind);
  } finally {
    await client.query("rollback");
  }
}

async function runMutation(ctx: CaseContext, table: TableModel, kind: "update" | "delete" | "insert"): Promise<CaseResult> {
  const { rnd, model } = ctx;
  const names = new Names(model);
  const type = names.type(table);
  const keyFields = table.primaryKey.map((k) => names.field(k)).join(" ");
  const filter = randomFilter(rnd, table, 1);
  const fake: ConnectionModel = { table, filter, orderBy: [], paging: {}, totalCount: false, pageInfo: [], edges: null, aggregate: null };
  const printer = new QueryPrinter(model, rnd.chance(0.5), () => "");
  const matched: OracleRow[] = await oracleRows(ctx.client, table, [], fake);
  const rowKey = (r: OracleRow) => JSON.stringify(table.primaryKey.map((k) => r.raw[k]));
  let body: string;
  let expectedKeys: string[];
  if (kind === "insert") {
    const objects = newRows(rnd, table, model);
    if (objects === null) return null;
    body = `insertInto${type}Collection(objects: ${printLiteral(objects.map((o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [names.field(k), v]))))}) { affectedCount records { ${keyFields} } }`;
    expectedKeys = objects.map((o) => keyOf(table, o));
  } else {
    const args = printer.args(fake);
    if (kind === "update") {
      const columns = settable(table);
      if (columns.length === 0) return null;
      const column = rnd.pick(columns);
      const value = inputValue(column, randomValue(rnd, column.type));
      const set = printLiteral({ [names.field(column.name)]: value });
      body = `update${type}Collection(set: ${set}, atMost: 1000, ${args.slice(1, -1)}) { affectedCount records { ${keyFields} } }`;
    } else {
      body = `deleteFrom${type}Collection(atMost: 1000, ${args.slice(1, -1)}) { affectedCount records { ${keyFields} } }`;
    }
    expectedKeys = matched.map(rowKey);
  }
  ctx.coverage.add(`mut:${kind}`);
  const answer = await ask(ctx, printer.operation(body, "mutation"));
  const failed = ok(answer);
  if (failed) return failed;
  const result = Object.values(answer.data)[0] as any;
  if (result.affectedCount !== expectedKeys.length) return `affectedCount ${result.affectedCount}, but ${expectedKeys.length} rows were to change`;
  const got = result.records.map((r: any) => JSON.stringify(table.primaryKey.map((k) => String(r[names.field(k)]))));
  return firstDifference([...expectedKeys].sort(), [...got].sort(), `$.records`);
}

/** One to three rows with fresh keys, or null when the table's keys make that awkward. */
function newRows(rnd: Random, table: TableModel, model: SchemaModel): Record<string, Value>[] | null {
  const out: Record<string, Value>[] = [];
  for (let i = 0; i < rnd.int(1, 3); i++) {
    const row: Record<string, Value> = {};
    for (const k of table.primaryKey) {
      const col = table.columns.find((c) => c.name === k)!;
      row[k] = col.type === "int" ? 1000 + i : col.type === "bigint" ? String(1000 + i) : col.type === "uuid" ? `00000000-0000-4000-9000-00000000000${i}` : `new_${i}`;
    }
    for (const fk of table.foreignKeys) {
      const nullable = fk.columns.every((c) => table.columns.find((x) => x.name === c)!.nullable);
      if (nullable) continue;
      const target = model.tables.find((t) => t.name === fk.table)!;
      if (fk.unique || target.rows.length === 0) return null;
      const ref = rnd.pick(target.rows);
      fk.columns.forEach((c, j) => (row[c] = inputValue(table.columns.find((x) => x.name === c)!, ref[target.primaryKey[j]!]!)));
    }
    for (const c of settable(table)) {
      if (c.nullable && rnd.chance(0.5)) continue;
      row[c.name] = inputValue(c, randomValue(rnd, c.type));
    }
    if (table.columns.some((c) => !c.nullable && !(c.name in row))) return null;
    out.push(row);
  }
  return out;
}

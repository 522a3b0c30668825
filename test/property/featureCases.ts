// Property test support: the opt-in features' mutations, on schemas that turn them on, inside the
// mutation case's rolled-back transaction: an upsert on the primary key (rows that conflict taken
// from the table, some updated, some left by the filter or by no fields to update) and a nested
// insert (new rows with a new parent or new children), each checked against the rows read back
// with plain SQL.
import type { CaseContext, CaseResult } from "./cases";
import { ask, inputValue, ok, settable } from "./cases";
import { firstDifference } from "./compare";
import { equalities, oracleRows, type OracleRow } from "./oracle";
import { EnumValue, filterValue, printLiteral, type Value } from "./printQuery";
import { Names, randomFilter, relationsOf, type FilterModel } from "./queryModel";
import { ident, randomValue, SCHEMA, sqlLiteral, type SchemaModel, type TableModel } from "./schemaModel";
import type { Random } from "./random";

/** A row's values by column name, as input values, with the literal texts behind them. */
interface NewRow {
  values: Record<string, Value>;
  texts: Record<string, string>;
}

/** Key texts no generated row has, distinct for each `n`. */
function freshKey(table: TableModel, n: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of table.primaryKey) {
    const type = table.columns.find((c) => c.name === k)!.type;
    out[k] = type === "int" || type === "bigint" ? String(2000 + n) : type === "uuid" ? `00000000-0000-4000-a000-${String(n).padStart(12, "0")}` : `fresh_${n}`;
  }
  return out;
}

/**
 * A new row with key `n`; the `filled` columns are left to the nested insert. Null when the
 * table's other keys or columns make one awkward.
 */
function newRow(rnd: Random, model: SchemaModel, table: TableModel, n: number, filled: ReadonlySet<string> = new Set()): NewRow | null {
  const texts: Record<string, string> = { ...freshKey(table, n) };
  for (const fk of table.foreignKeys) {
    if (fk.columns.some((c) => filled.has(c))) continue;
    if (fk.columns.every((c) => table.columns.find((x) => x.name === c)!.nullable)) continue;
    const target = model.tables.find((t) => t.name === fk.table)!;
    if (fk.unique || target.rows.length === 0) return null;
    const ref = rnd.pick(target.rows);
    fk.columns.forEach((c, j) => (texts[c] = ref[target.primaryKey[j]!]!));
  }
  for (const c of settable(table)) if (!c.nullable || rnd.chance(0.5)) texts[c.name] = randomValue(rnd, c.type);
  if (table.columns.some((c) => !c.nullable && !(c.name in texts) && !filled.has(c.name))) return null;
  return { texts, values: valuesOf(table, texts) };
}

function valuesOf(table: TableModel, texts: Record<string, string>): Record<string, Value> {
  return Object.fromEntries(Object.entries(texts).map(([k, t]) => [k, inputValue(table.columns.find((c) => c.name === k)!, t)]));
}

/** An object as the API takes it: fields under their API names. */
function apiObject(names: Names, values: Record<string, Value>): Record<string, Value> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [names.field(k), v]));
}

const keyText = (table: TableModel, texts: Record<string, string | null>) => JSON.stringify(table.primaryKey.map((k) => texts[k]));

/** How many rows of `table` match all of `conditions` (on the alias `r`). */
async function count(ctx: CaseContext, table: TableModel, conditions: string[]): Promise<number> {
  const { rows } = await ctx.client.query(`select count(*)::int as n from ${SCHEMA}.${ident(table.name)} as r where ${conditions.join(" and ") || "true"}`);
  return rows[0].n;
}

const keyOf = (table: TableModel, texts: Record<string, string | null>) => equalities(table.primaryKey, table, table.primaryKey.map((k) => texts[k] ?? null));

/** An upsert on the primary key: some objects new, some conflicting with rows of the table. */
export async function upsertCase(ctx: CaseContext, table: TableModel): Promise<CaseResult> {
  const { rnd, model } = ctx;
  const names = new Names(model);
  const existing = await oracleRows(ctx.client, table, [], null);
  const columns = settable(table);
  const objects: NewRow[] = [];
  const conflicts: { row: OracleRow; proposed: NewRow }[] = [];
  for (let i = 0; i < rnd.int(1, 3); i++) {
    const unused = existing.filter((r) => !conflicts.some((c) => c.row === r));
    if (unused.length > 0 && rnd.chance(0.5)) {
      const row = rnd.pick(unused);
      const texts: Record<string, string> = {};
      for (const c of table.columns) if (row.raw[c.name] !== null) texts[c.name] = row.raw[c.name]!;
      for (const c of columns) if (rnd.chance(0.6)) texts[c.name] = randomValue(rnd, c.type);
      const proposed = { texts, values: valuesOf(table, texts) };
      conflicts.push({ row, proposed });
      objects.push(proposed);
    } else {
      const row = newRow(rnd, model, table, i);
      if (row === null) return null;
      objects.push(row);
    }
  }
  const update = rnd.subset(columns, 0.5);
  const filter: FilterModel | null = update.length > 0 && rnd.chance(0.4) ? randomFilter(rnd, table, 1, model) : null;
  // A conflicting row is updated when there are fields to update and the filter takes it.
  const updated: typeof conflicts = [];
  for (const c of conflicts) {
    if (update.length === 0) continue;
    const matches = filter === null || (await oracleRows(ctx.client, table, keyOf(table, c.row.raw), { table, filter, orderBy: [], paging: {}, totalCount: false, pageInfo: [], edges: null, aggregate: null })).length > 0;
    if (matches) updated.push(c);
  }
  const onConflict: Value = {
    constraint: new EnumValue(`${table.name}_pkey`),
    updateFields: update.map((c) => new EnumValue(names.field(c.name))),
    ...(filter ? { filter: filterValue(names, table, filter) } : {}),
  };
  const keyFields = table.primaryKey.map((k) => names.field(k)).join(" ");
  const body = `insertInto${names.type(table)}Collection(objects: ${printLiteral(objects.map((o) => apiObject(names, o.values)))}, onConflict: ${printLiteral(onConflict)}) { affectedCount records { ${keyFields} } }`;
  ctx.coverage.add("mut:upsert");
  if (filter) ctx.coverage.add("mut:upsert:filter");
  if (update.length === 0) ctx.coverage.add("mut:upsert:nothing");
  const answer = await ask(ctx, { text: `mutation { ${body} }`, variables: {} });
  const failed = ok(answer);
  if (failed) return failed;
  const result = Object.values(answer.data)[0] as any;
  const inserted = objects.filter((o) => !conflicts.some((c) => c.proposed === o));
  const expected = [...inserted.map((o) => keyText(table, o.texts)), ...updated.map((c) => keyText(table, c.row.raw))].sort();
  const got = result.records.map((r: any) => JSON.stringify(table.primaryKey.map((k) => String(r[names.field(k)])))).sort();
  if (result.affectedCount !== expected.length) return `upsert: affectedCount ${result.affectedCount}, but ${expected.length} rows were to be written`;
  const difference = firstDifference(expected, got, "$.records");
  if (difference) return difference;
  // Updated rows hold the proposed values of the fields named; the others are as they were.
  for (const c of conflicts) {
    const isUpdated = updated.includes(c);
    const checks = table.columns.map((col) => {
      const value = isUpdated && update.includes(col) ? (c.proposed.texts[col.name] ?? null) : c.row.raw[col.name] ?? null;
      return `r.${ident(col.name)} is not distinct from ${sqlLiteral(value, col.type)}`;
    });
    if ((await count(ctx, table, [...keyOf(table, c.row.raw), ...checks])) !== 1) return `upsert: row ${keyText(table, c.row.raw)} does not hold the values expected (${isUpdated ? "updated" : "left as it was"})`;
  }
  return null;
}

/** New rows, each maybe with a new parent (a to-one relationship) and new children. */
export async function nestedInsertCase(ctx: CaseContext, table: TableModel): Promise<CaseResult> {
  const { rnd, model } = ctx;
  const names = new Names(model);
  const relations = relationsOf(model, table);
  const parentRel = relations.filter((r) => r.kind === "toOne");
  const childRel = relations.filter((r) => r.kind !== "toOne");
  if (relations.length === 0) return null;
  const parent = parentRel.length > 0 && rnd.chance(0.6) ? rnd.pick(parentRel) : null;
  const child = childRel.length > 0 && (parent === null || rnd.chance(0.6)) ? rnd.pick(childRel) : null;
  if (parent === null && child === null) return null;
  let n = 0;
  const roots: { row: NewRow; parent: NewRow | null; children: NewRow[] }[] = [];
  for (let i = 0; i < rnd.int(1, 2); i++) {
    const row = newRow(rnd, model, table, n++, new Set(parent ? parent.localColumns : []));
    if (row === null) return null;
    const parentRow = parent ? newRow(rnd, model, parent.table, n++) : null;
    if (parent && parentRow === null) return null;
    const children: NewRow[] = [];
    const count = child === null ? 0 : child.kind === "many" ? rnd.int(0, 2) : 1;
    for (let k = 0; k < count; k++) {
      const kid = newRow(rnd, model, child!.table, n++, new Set(child!.foreignColumns));
      if (kid === null) return null;
      children.push(kid);
    }
    roots.push({ row, parent: parentRow, children });
  }
  const objects = roots.map((r) => {
    const o = apiObject(names, r.row.values);
    if (parent) o[parent.field] = { object: apiObject(names, r.parent!.values) };
    if (child) o[child.field] = child.kind === "many" ? { objects: r.children.map((c) => apiObject(names, c.values)) } : { object: apiObject(names, r.children[0]!.values) };
    return o;
  });
  const keys = (t: TableModel) => t.primaryKey.map((k) => names.field(k)).join(" ");
  const selections = [keys(table)];
  if (parent) selections.push(`${parent.field} { ${keys(parent.table)} }`);
  if (child) selections.push(child.kind === "many" ? `${child.field} { edges { node { ${keys(child.table)} } } }` : `${child.field} { ${keys(child.table)} }`);
  const body = `insertInto${names.type(table)}Collection(objects: ${printLiteral(objects)}) { affectedCount records { ${selections.join(" ")} } }`;
  ctx.coverage.add("mut:nested");
  if (parent) ctx.coverage.add("mut:nested:parent");
  if (child) ctx.coverage.add(`mut:nested:${child.kind}`);
  const answer = await ask(ctx, { text: `mutation { ${body} }`, variables: {} });
  const failed = ok(answer);
  if (failed) return failed;
  const result = Object.values(answer.data)[0] as any;
  if (result.affectedCount !== roots.length) return `nested insert: affectedCount ${result.affectedCount}, but ${roots.length} rows were inserted`;
  // The rows read back with plain SQL, each key referring to the row it was given with.
  const printedKey = (t: TableModel, texts: Record<string, string>) => Object.fromEntries(t.primaryKey.map((k) => [names.field(k), printedValue(t, k, texts[k]!)]));
  const expected = [];
  for (const r of roots) {
    const record: Record<string, unknown> = printedKey(table, r.row.texts);
    if (parent) {
      const linked = parent.localColumns.map((c, i) => `r.${ident(c)} = ${sqlLiteral(r.parent!.texts[parent.table.primaryKey[i]!]!, parent.table.columns.find((x) => x.name === parent.table.primaryKey[i])!.type)}`);
      if ((await count(ctx, table, [...keyOf(table, r.row.texts), ...linked])) !== 1) return `nested insert: row ${keyText(table, r.row.texts)} does not refer to its new parent`;
      record[parent.field] = printedKey(parent.table, r.parent!.texts);
    }
    if (child) {
      for (const kid of r.children) {
        const linked = child.foreignColumns.map((c, i) => `r.${ident(c)} = ${sqlLiteral(r.row.texts[table.primaryKey[i]!]!, table.columns.find((x) => x.name === table.primaryKey[i])!.type)}`);
        if ((await count(ctx, child.table, [...keyOf(child.table, kid.texts), ...linked])) !== 1) return `nested insert: child ${keyText(child.table, kid.texts)} does not refer to its parent`;
      }
      const kids = r.children.map((k) => printedKey(child.table, k.texts));
      record[child.field] = child.kind === "many" ? { edges: sortedByKey(kids).map((node) => ({ node })) } : kids[0] ?? null;
    }
    expected.push(record);
  }
  const actual = result.records.map((rec: any) => (child?.kind === "many" ? { ...rec, [child.field]: { edges: sortedByKey(rec[child.field].edges.map((e: any) => e.node)).map((node) => ({ node })) } } : rec));
  return firstDifference(expected, actual, "$.records");
}

/** A key column's value as the API prints it (bigints as strings, ints as numbers). */
function printedValue(table: TableModel, column: string, text: string): unknown {
  return table.columns.find((c) => c.name === column)!.type === "int" ? Number(text) : text;
}

function sortedByKey<T>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

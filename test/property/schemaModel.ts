// Property test support: random database schemas with rows, as a model the test reasons about
// (the oracle reads the database only through plain SQL built from this model) and as DDL.
import { Random } from "./random";

export const COLUMN_TYPES = ["int", "bigint", "text", "bool", "numeric", "float", "date", "timestamptz", "uuid", "jsonb", "enum"] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const SCHEMA = "prop";
export const ENUM_LABELS = ["red", "green", "blue_sky"] as const;

export interface ColumnModel {
  name: string;
  type: ColumnType;
  nullable: boolean;
}

export interface ForeignKeyModel {
  columns: string[];
  table: string;
  /** A unique index covers the columns: a one-to-one relationship. */
  unique: boolean;
}

export interface TableModel {
  name: string;
  columns: ColumnModel[];
  primaryKey: string[];
  foreignKeys: ForeignKeyModel[];
  /** A view over another table, exposed with the primary_key_columns directive. */
  viewOf?: string;
  maxRows?: number;
  aggregate: boolean;
  totalCount: boolean;
  /** Row values as SQL literal texts (null for NULL), keyed by column. */
  rows: Record<string, string | null>[];
}

export interface SchemaModel {
  seed: number;
  inflect: boolean;
  tables: TableModel[];
}

export const SQL_TYPES: Record<ColumnType, string> = {
  int: "int4",
  bigint: "int8",
  text: "text",
  bool: "bool",
  numeric: "numeric",
  float: "float8",
  date: "date",
  timestamptz: "timestamptz",
  uuid: "uuid",
  jsonb: "jsonb",
  enum: `${SCHEMA}.color`,
};

const TEXTS = ["a", "b", "B", "O'Brien", "ünïcödé", "日本語", 'say "hi"', "", "100%_done", "back\\slash", "a b"];
const JSONS = ['{"a": 1}', "[1, 2]", '"s"', "null", '{"k": {"n": [true]}}'];

/** A random value of a column type as SQL literal text; small pools make duplicates likely. */
export function randomValue(rnd: Random, type: ColumnType): string {
  switch (type) {
    case "int":
      return String(rnd.int(-3, 12));
    case "bigint":
      return rnd.pick(["0", "7", "-2", "9007199254740993", "42"]);
    case "text":
      return rnd.pick(TEXTS);
    case "bool":
      return rnd.pick(["true", "false"]);
    case "numeric":
      return rnd.pick(["0", "1.5", "-2.25", "10", "3.14159", "12345678901234567890.5"]);
    case "float":
      return rnd.pick(["0", "1.5", "-0.25", "1e10", "3.75", "100"]);
    case "date":
      return rnd.pick(["2020-01-01", "2021-06-15", "1999-12-31", "2024-02-29"]);
    case "timestamptz":
      return rnd.pick(["2020-01-01 00:00:00+00", "2021-06-15 12:30:00+00", "2024-02-29 23:59:59.5+00"]);
    case "uuid":
      return rnd.pick(["00000000-0000-0000-0000-000000000001", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "ffffffff-ffff-ffff-ffff-ffffffffffff"]);
    case "jsonb":
      return rnd.pick(JSONS);
    case "enum":
      return rnd.pick(ENUM_LABELS);
  }
}

/** Types a primary key may use (keys are written into cursors and node ids). */
const KEY_TYPES: ColumnType[] = ["int", "text", "uuid", "bigint"];

function keyValues(rnd: Random, types: ColumnType[], count: number): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (let tries = 0; out.length < count && tries < count * 20; tries++) {
    const key = types.map((t) => (t === "int" || t === "bigint" ? String(rnd.int(1, 60)) : t === "uuid" ? uuidOf(rnd.int(1, 999)) : rnd.pick(TEXTS.filter(Boolean)) + rnd.int(0, 3)));
    const id = JSON.stringify(key);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(key);
  }
  return out;
}

function uuidOf(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
}

function randomColumns(rnd: Random, prefix: string): ColumnModel[] {
  const count = rnd.int(2, 5);
  const types = rnd.shuffle(COLUMN_TYPES).slice(0, count);
  return types.map((type, i) => ({ name: `${prefix}${type}_${i}`, type, nullable: rnd.chance(0.6) }));
}

export function randomSchema(seed: number): SchemaModel {
  const rnd = new Random(seed);
  const tables: TableModel[] = [];
  const count = rnd.int(2, 4);
  for (let i = 0; i < count; i++) {
    const name = `t${i}_${rnd.pick(["item", "node", "entry"])}`;
    const composite = rnd.chance(0.3);
    const keyTypes: ColumnType[] = composite ? [rnd.pick(KEY_TYPES), rnd.pick(KEY_TYPES)] : [rnd.chance(0.7) ? "int" : rnd.pick(KEY_TYPES)];
    const keyColumns: ColumnModel[] = keyTypes.map((type, k) => ({ name: keyTypes.length === 1 ? "id" : `k${k}`, type, nullable: false }));
    const table: TableModel = {
      name,
      columns: [...keyColumns, ...randomColumns(rnd, "c_")],
      primaryKey: keyColumns.map((c) => c.name),
      foreignKeys: [],
      aggregate: rnd.chance(0.7),
      totalCount: rnd.chance(0.8),
      rows: [],
      ...(rnd.chance(0.2) ? { maxRows: rnd.int(3, 8) } : {}),
    };
    // A key to an earlier table (one-to-many, or one-to-one through a unique index) and maybe
    // one to itself.
    if (i > 0 && rnd.chance(0.85)) {
      const target = tables[rnd.int(0, i - 1)]!;
      addForeignKey(rnd, table, target, rnd.chance(0.25));
    }
    if (rnd.chance(0.3) && table.primaryKey.length === 1) addForeignKey(rnd, table, table, false);
    tables.push(table);
  }
  for (const table of tables) fillRows(rnd, table, tables);
  const viewed = rnd.pick(tables);
  tables.push({
    ...viewed,
    name: `v_${viewed.name}`,
    foreignKeys: [],
    viewOf: viewed.name,
    aggregate: rnd.chance(0.5),
    totalCount: true,
    maxRows: undefined,
  });
  return { seed, inflect: rnd.chance(0.6), tables };
}

/** `t0_item` → `t0Item`. */
function lowerCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * A key column's name for a one-column key, in one of the styles relationship names are made
 * from: `_id` (`t0_item_id`, `parent_id`), camelCase `Id` (`t0ItemId`, `parentId`), or neither
 * (`ref_t0_item`, `parent`).
 */
function keyColumnName(rnd: Random, base: string): string {
  switch (rnd.pick(["snake", "camel", "plain"] as const)) {
    case "snake":
      return `${base}_id`;
    case "camel":
      return `${lowerCamel(base)}Id`;
    case "plain":
      return base === "parent" ? base : `ref_${base}`;
  }
}

function addForeignKey(rnd: Random, table: TableModel, target: TableModel, unique: boolean): void {
  const self = table === target;
  const single = keyColumnName(rnd, self ? "parent" : target.name);
  const columns = target.primaryKey.map((k) => (target.primaryKey.length === 1 ? single : `${target.name}_${k}`));
  target.primaryKey.forEach((k, i) => {
    const keyColumn = target.columns.find((c) => c.name === k)!;
    table.columns.push({ name: columns[i]!, type: keyColumn.type, nullable: self || rnd.chance(0.5) });
  });
  table.foreignKeys.push({ columns, table: target.name, unique });
}

function fillRows(rnd: Random, table: TableModel, tables: TableModel[]): void {
  const keys = keyValues(rnd, table.primaryKey.map((k) => table.columns.find((c) => c.name === k)!.type), rnd.int(0, 18));
  for (const key of keys) {
    const row: Record<string, string | null> = {};
    table.primaryKey.forEach((k, i) => (row[k] = key[i]!));
    for (const c of table.columns) {
      if (c.name in row) continue;
      row[c.name] = c.nullable && rnd.chance(0.25) ? null : randomValue(rnd, c.type);
    }
    for (const fk of table.foreignKeys) {
      const target = tables.find((t) => t.name === fk.table)!;
      const candidates = target === table ? table.rows : target.rows;
      const ref = candidates.length > 0 && rnd.chance(0.85) ? rnd.pick(candidates) : null;
      const nullable = fk.columns.every((c) => table.columns.find((x) => x.name === c)!.nullable);
      if (ref === null && !nullable && target.rows.length === 0) return; // no row can satisfy the key
      const pick = ref ?? (nullable ? null : rnd.pick(target.rows));
      fk.columns.forEach((c, i) => (row[c] = pick === null ? null : pick[target.primaryKey[i]!]!));
    }
    // One-to-one keys take each referenced row once.
    if (table.foreignKeys.some((fk) => fk.unique && table.rows.some((r) => fk.columns.every((c) => r[c] !== null && r[c] === row[c])))) continue;
    table.rows.push(row);
  }
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
export const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Literal text → a typed SQL literal. */
export function sqlLiteral(value: string | null, type: ColumnType): string {
  return value === null ? `null::${SQL_TYPES[type]}` : `${quote(value)}::${SQL_TYPES[type]}`;
}

/** The DDL and rows of a schema, to run in an empty database (and to print with a failing seed). */
export function schemaSql(model: SchemaModel): string {
  const out = [
    `drop schema if exists ${SCHEMA} cascade;`,
    `create schema ${SCHEMA};`,
    `comment on schema ${SCHEMA} is ${quote(`@graphql({"inflect_names": ${model.inflect}})`)};`,
    `create type ${SCHEMA}.color as enum (${ENUM_LABELS.map(quote).join(", ")});`,
  ];
  for (const t of model.tables) {
    const directives: Record<string, unknown> = {};
    if (t.aggregate) directives["aggregate"] = { enabled: true };
    if (t.totalCount) directives["totalCount"] = { enabled: true };
    if (t.maxRows !== undefined) directives["max_rows"] = t.maxRows;
    if (t.viewOf) {
      directives["primary_key_columns"] = t.primaryKey;
      out.push(`create view ${SCHEMA}.${t.name} as select * from ${SCHEMA}.${t.viewOf};`);
    } else {
      const cols = t.columns.map((c) => `${ident(c.name)} ${SQL_TYPES[c.type]}${c.nullable ? "" : " not null"}`);
      cols.push(`primary key (${t.primaryKey.map(ident).join(", ")})`);
      for (const fk of t.foreignKeys) {
        const target = model.tables.find((x) => x.name === fk.table)!;
        cols.push(`foreign key (${fk.columns.map(ident).join(", ")}) references ${SCHEMA}.${fk.table}(${target.primaryKey.map(ident).join(", ")}) on delete cascade`);
        if (fk.unique) cols.push(`unique (${fk.columns.map(ident).join(", ")})`);
      }
      out.push(`create table ${SCHEMA}.${t.name} (\n  ${cols.join(",\n  ")}\n);`);
    }
    out.push(`comment on ${t.viewOf ? "view" : "table"} ${SCHEMA}.${t.name} is ${quote(`@graphql(${JSON.stringify(directives)})`)};`);
  }
  for (const t of model.tables) {
    if (t.viewOf) continue;
    for (const row of t.rows) {
      const cols = t.columns.map((c) => ident(c.name)).join(", ");
      const values = t.columns.map((c) => sqlLiteral(row[c.name] ?? null, c.type)).join(", ");
      out.push(`insert into ${SCHEMA}.${t.name} (${cols}) values (${values});`);
    }
  }
  return out.join("\n");
}

// Property test support: random valid queries over a SchemaModel (filters with every operator
// and and/or/not nesting, orderBy, paging arguments, nested relationships, aggregates) and their
// GraphQL text. Names are derived here from pg_graphql's documented rules, not from the resolver.
import { Random } from "./random";
import { ENUM_LABELS, randomValue, type ColumnModel, type ColumnType, type ForeignKeyModel, type SchemaModel, type TableModel } from "./schemaModel";

export type Op = "eq" | "neq" | "lt" | "lte" | "gt" | "gte" | "in" | "is" | "startsWith" | "like" | "ilike" | "regex" | "iregex";
export const DIRECTIONS = ["AscNullsFirst", "AscNullsLast", "DescNullsFirst", "DescNullsLast"] as const;
export type Direction = (typeof DIRECTIONS)[number];

const ORDERED: Op[] = ["eq", "neq", "lt", "lte", "gt", "gte", "in", "is"];
export const OPS_BY_TYPE: Record<ColumnType, Op[]> = {
  int: ORDERED,
  bigint: ORDERED,
  numeric: ORDERED,
  float: ORDERED,
  date: ORDERED,
  timestamptz: ORDERED,
  text: [...ORDERED, "startsWith", "like", "ilike", "regex", "iregex"],
  bool: ["eq", "is"],
  uuid: ["eq", "neq", "in", "is"],
  enum: ["eq", "neq", "in", "is"],
  jsonb: [],
};

export const PAGE_INFO_FIELDS = ["hasNextPage", "hasPreviousPage", "startCursor", "endCursor"] as const;
export type PageInfoField = (typeof PAGE_INFO_FIELDS)[number];

export interface ColumnFilter {
  column: ColumnModel;
  op: Op;
  /** Literal text of the operand (a list for `in`; "NULL"/"NOT_NULL" for `is`). */
  value: string | string[];
}

export interface FilterModel {
  columns: ColumnFilter[];
  /** `nodeId: {eq: ...}` naming the row with these key texts. */
  nodeId?: string[];
  and?: FilterModel[];
  or?: FilterModel[];
  not?: FilterModel;
}

export interface OrderModel {
  column: ColumnModel;
  direction: Direction;
}

export interface Paging {
  first?: number;
  last?: number;
  offset?: number;
  /** Index of the row (in the filtered, ordered list) whose cursor is passed. */
  after?: number;
  before?: number;
  /** The cursor was taken from the unfiltered list (so its row may not match the filter). */
  unfilteredCursor?: boolean;
  /** The cursor carries only its first values, this many (of the order's columns, key last). */
  cursorLength?: number;
}

export interface NodeSelection {
  columns: ColumnModel[];
  nodeId: boolean;
  typename: boolean;
  relations: RelationSelection[];
}

export type RelationSelection =
  | { kind: "toOne"; field: string; table: TableModel; localColumns: string[]; selection: NodeSelection }
  | { kind: "oneToOne"; field: string; table: TableModel; foreignColumns: string[]; selection: NodeSelection }
  | { kind: "many"; field: string; table: TableModel; foreignColumns: string[]; connection: ConnectionModel };

export interface ConnectionModel {
  table: TableModel;
  filter: FilterModel | null;
  orderBy: OrderModel[];
  paging: Paging;
  totalCount: boolean;
  /** The pageInfo fields asked for (none: no pageInfo). */
  pageInfo: PageInfoField[];
  edges: { cursor: boolean; node: NodeSelection } | null;
  aggregate: { count: boolean; ops: { op: "sum" | "avg" | "min" | "max"; columns: ColumnModel[] }[] } | null;
}

function pascal(name: string): string {
  return name
    .split("_")
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

export class Names {
  constructor(readonly model: SchemaModel) {}
  type(t: TableModel): string {
    return this.model.inflect ? pascal(t.name) : t.name;
  }
  field(name: string): string {
    if (!this.model.inflect) return name;
    const p = pascal(name);
    return p.charAt(0).toLowerCase() + p.slice(1);
  }
  /** `Account` → `account`: the base of root and relationship field names. */
  typeField(t: TableModel): string {
    const type = this.type(t);
    return `${type.charAt(0).toLowerCase()}${type.slice(1)}`;
  }
  collection(t: TableModel): string {
    return `${this.typeField(t)}Collection`;
  }
  /**
   * The to-one field of a key, as pg_graphql names it: one column ending in `Id` without
   * inflection, or in `_id` with it, gives the rest (inflected); any other key the referenced
   * type's name.
   */
  toOne(fk: ForeignKeyModel, target: TableModel): string {
    const suffix = this.model.inflect ? "_id" : "Id";
    const only = fk.columns.length === 1 ? fk.columns[0]! : null;
    if (only === null || !only.endsWith(suffix) || only.length === suffix.length) return this.typeField(target);
    return this.field(only.slice(0, -suffix.length));
  }
}

export const AGGREGATABLE: ColumnType[] = ["int", "bigint", "numeric", "float"];

/** Random operand texts for a column filter. */
function operand(rnd: Random, column: ColumnModel, op: Op, rows: Record<string, string | null>[]): string | string[] {
  const sample = (): string => {
    const seen = rows.map((r) => r[column.name]).filter((v): v is string => v !== null && v !== undefined);
    return seen.length > 0 && rnd.chance(0.6) ? rnd.pick(seen) : randomValue(rnd, column.type);
  };
  switch (op) {
    case "is":
      return rnd.pick(["NULL", "NOT_NULL"]);
    case "in":
      return Array.from({ length: rnd.int(0, 3) }, sample);
    case "like":
    case "ilike":
      return rnd.pick(["a%", "%b%", "_", "%'%", "o%", "%"]);
    case "regex":
    case "iregex":
      return rnd.pick(["a", "^[ab]", "é", "[0-9]", "^$", "o'"]);
    case "startsWith":
      return rnd.pick(["a", "O'", "日", "", "b"]);
    default:
      return sample();
  }
}

export function randomFilter(rnd: Random, table: TableModel, depth: number): FilterModel {
  const filterable = table.columns.filter((c) => OPS_BY_TYPE[c.type].length > 0);
  const filter: FilterModel = { columns: [] };
  for (const column of rnd.subset(filterable, depth === 0 ? 0.35 : 0.25)) {
    filter.columns.push({ column, op: rnd.pick(OPS_BY_TYPE[column.type]), value: "" });
  }
  for (const cf of filter.columns) cf.value = operand(rnd, cf.column, cf.op, table.rows);
  if (table.rows.length > 0 && rnd.chance(0.04)) filter.nodeId = table.primaryKey.map((k) => rnd.pick(table.rows)[k]!);
  if (depth < 3) {
    if (rnd.chance(0.2)) filter.and = Array.from({ length: rnd.int(0, 2) }, () => randomFilter(rnd, table, depth + 1));
    if (rnd.chance(0.25)) filter.or = Array.from({ length: rnd.int(0, 3) }, () => randomFilter(rnd, table, depth + 1));
    if (rnd.chance(0.15)) filter.not = randomFilter(rnd, table, depth + 1);
  }
  return filter;
}

export function orderable(table: TableModel): ColumnModel[] {
  return table.columns.filter((c) => c.type !== "jsonb");
}

export function randomOrder(rnd: Random, table: TableModel): OrderModel[] {
  return rnd.shuffle(orderable(table))
    .slice(0, rnd.int(0, 3))
    .map((column) => ({ column, direction: rnd.pick(DIRECTIONS) }));
}

export function randomNode(rnd: Random, model: SchemaModel, table: TableModel, depth: number): NodeSelection {
  const names = new Names(model);
  const columns = rnd.subset(table.columns, 0.6);
  if (columns.length === 0) columns.push(table.columns[0]!);
  const relations: RelationSelection[] = [];
  if (depth < 2 && !table.viewOf) {
    for (const fk of table.foreignKeys) {
      if (!rnd.chance(0.4)) continue;
      const target = model.tables.find((t) => t.name === fk.table)!;
      const field = names.toOne(fk, target);
      relations.push({ kind: "toOne", field, table: target, localColumns: fk.columns, selection: randomNode(rnd, model, target, depth + 1) });
    }
    for (const child of model.tables) {
      for (const fk of child.foreignKeys) {
        if (fk.table !== table.name || !rnd.chance(0.4)) continue;
        const base = names.typeField(child);
        if (fk.unique) {
          relations.push({ kind: "oneToOne", field: base, table: child, foreignColumns: fk.columns, selection: randomNode(rnd, model, child, depth + 1) });
        } else {
          const connection = randomConnection(rnd, model, child, depth + 1, false);
          relations.push({ kind: "many", field: `${base}Collection`, table: child, foreignColumns: fk.columns, connection });
        }
      }
    }
  }
  return { columns, nodeId: rnd.chance(0.3), typename: rnd.chance(0.15), relations };
}

/** A connection query; cursors (`after`/`before`) are chosen by the runner, which knows the rows. */
export function randomConnection(rnd: Random, model: SchemaModel, table: TableModel, depth: number, root: boolean): ConnectionModel {
  const paging: Paging = {};
  const shape = rnd.int(0, 4);
  if (shape === 1) paging.first = rnd.int(0, 6);
  if (shape === 2) paging.last = rnd.int(0, 6);
  if (shape === 3) {
    paging.first = rnd.int(0, 6);
    paging.offset = rnd.int(0, 8);
  }
  const aggregatable = table.columns.filter((c) => AGGREGATABLE.includes(c.type));
  let aggregate: ConnectionModel["aggregate"] = null;
  if (table.aggregate && root && rnd.chance(0.35)) {
    const ops = (["sum", "avg", "min", "max"] as const)
      .filter(() => rnd.chance(0.5))
      .map((op) => ({ op, columns: rnd.subset(aggregatable, 0.7) }))
      .filter((o) => o.columns.length > 0);
    // A selection set is never empty.
    aggregate = { count: ops.length === 0 || rnd.chance(0.7), ops };
  }
  const edges = rnd.chance(0.85) ? { cursor: rnd.chance(0.3), node: randomNode(rnd, model, table, depth) } : null;
  const totalCount = table.totalCount && rnd.chance(0.5);
  let pageInfo: PageInfoField[] = rnd.chance(0.45) || (!edges && !totalCount && !aggregate) ? rnd.subset(PAGE_INFO_FIELDS, 0.6) : [];
  if (pageInfo.length === 0 && !edges && !totalCount && !aggregate) pageInfo = [rnd.pick(PAGE_INFO_FIELDS)];
  return {
    table,
    filter: rnd.chance(0.65) ? randomFilter(rnd, table, 0) : null,
    orderBy: rnd.chance(0.7) ? randomOrder(rnd, table) : [],
    paging,
    totalCount,
    pageInfo,
    edges,
    aggregate,
  };
}

export { ENUM_LABELS };

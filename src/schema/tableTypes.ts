// Schema stage, per-table types: one exposed table → its node, connection, edge, filter, order-by,
// mutation input/response and aggregate types. Relationships and computed fields are added lazily.

import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from "graphql";
import type { Column, Table } from "../catalog/model";
import { buildAggregate } from "./aggregateTypes";
import { isValidName, type Inflector } from "./inflection";
import { inputResolved, resolved, sourced } from "./resolution";
import type { TypeShape } from "./scalars";
import type { SharedTypes } from "./sharedTypes";

/** Every type name a table may produce, as suffixes of its base name. */
export const TABLE_TYPE_SUFFIXES = [
  "",
  "Connection",
  "Edge",
  "Filter",
  "OrderBy",
  "InsertInput",
  "InsertResponse",
  "UpdateInput",
  "UpdateResponse",
  "DeleteResponse",
  "Aggregate",
  "SumAggregateResult",
  "AvgAggregateResult",
  "MinAggregateResult",
  "MaxAggregateResult",
];

export interface TableTypes {
  readonly table: Table;
  readonly inflector: Inflector;
  /** Base type name, e.g. `BlogPost`. */
  readonly base: string;
  /** Base field name, e.g. `blogPost` (→ `blogPostCollection`, `blogPostByPk`). */
  readonly fieldBase: string;
  /** Columns the role may select and the API can represent, in attnum order. */
  readonly columns: readonly Column[];
  readonly node: GraphQLObjectType;
  readonly connection: GraphQLObjectType;
  readonly edge: GraphQLObjectType;
  readonly filter: GraphQLInputObjectType;
  readonly orderBy: GraphQLInputObjectType;
  readonly insertInput: GraphQLInputObjectType | null;
  readonly insertResponse: GraphQLObjectType | null;
  readonly updateInput: GraphQLInputObjectType | null;
  readonly updateResponse: GraphQLObjectType | null;
  readonly deleteResponse: GraphQLObjectType | null;
  readonly aggregate: GraphQLObjectType | null;
  /** Every named type of this table, for the schema's type list. */
  readonly all: readonly (GraphQLObjectType | GraphQLInputObjectType)[];
}

/** Scalars, enums and lists of them: each serves as an input and as an output type. */
export type LeafType = GraphQLScalarType | GraphQLEnumType | GraphQLList<LeafType>;

/** Resolves column shapes to graphql-js types; supplied by the builder (enums are shared). */
export interface LeafTypes {
  shape(column: Column): TypeShape;
  /** The type of a shape, or null when the API cannot represent it. */
  leaf(shape: TypeShape): LeafType | null;
  enumFilter(shape: TypeShape & { kind: "enum" }): GraphQLInputObjectType;
}

/** Columns the role may select and the API can represent, in attnum order. */
export function visibleColumns(table: Table, inflector: Inflector, types: LeafTypes): Column[] {
  return table.columns.filter((c) => c.privileges.select && isValidName(inflector.column(c)) && types.leaf(types.shape(c)) !== null);
}

export function columnFields(table: Table, columns: readonly Column[], inflector: Inflector, types: LeafTypes): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const column of columns) {
    const out = types.leaf(types.shape(column))!;
    fields[inflector.column(column)] = {
      type: column.notNull ? new GraphQLNonNull(out) : out,
      description: column.directives.description ?? null,
      extensions: resolved({ kind: "column", table, column }),
    };
  }
  return fields;
}

const AFFECTED_COUNT = "Count of the records impacted by the mutation";
const RECORDS = "Array of records impacted by the mutation";

/** The pagination/filter/order arguments of every collection field. */
export function connectionArgs(t: TableTypes, shared: SharedTypes): GraphQLFieldConfigArgumentMap {
  return {
    first: { type: GraphQLInt, description: "Query the first `n` records in the collection" },
    last: { type: GraphQLInt, description: "Query the last `n` records in the collection" },
    before: { type: shared.scalars.Cursor, description: "Query values in the collection before the provided cursor" },
    after: { type: shared.scalars.Cursor, description: "Query values in the collection after the provided cursor" },
    offset: {
      type: GraphQLInt,
      description:
        "Skip n values from the after cursor. Alternative to cursor pagination. Backward pagination not supported.",
    },
    filter: { type: t.filter, description: "Filters to apply to the results set when querying from the collection" },
    orderBy: {
      type: new GraphQLList(new GraphQLNonNull(t.orderBy)),
      description: "Sort order to apply to the collection",
    },
  };
}

/**
 * Fields a table's types take beyond its own columns, supplied by the builder and asked for
 * lazily, once every table's types exist: the node's relationships and computed fields, and what
 * the opt-in features add to the filter, order-by and insert input types.
 */
export interface TableExtras {
  nodeFields(t: TableTypes): GraphQLFieldConfigMap<unknown, unknown>;
  filterFields(t: TableTypes): GraphQLInputFieldConfigMap;
  orderByFields(t: TableTypes): GraphQLInputFieldConfigMap;
  insertFields(t: TableTypes): GraphQLInputFieldConfigMap;
}

/** Adds the fields of `extra` whose names `fields` does not hold yet: a table's own fields win. */
function withExtra(fields: GraphQLInputFieldConfigMap, extra: GraphQLInputFieldConfigMap): GraphQLInputFieldConfigMap {
  for (const [name, field] of Object.entries(extra)) if (!(name in fields)) fields[name] = field;
  return fields;
}

/** What every type of one table is built from. */
interface TableBuild {
  readonly table: Table;
  readonly inflector: Inflector;
  readonly shared: SharedTypes;
  readonly types: LeafTypes;
  readonly base: string;
  /** The columns the role may read and the API can represent. */
  readonly columns: readonly Column[];
}

/** Builds the types of one table; `extras` supplies their fields beyond the table's columns. */
export function buildTableTypes(
  table: Table,
  inflector: Inflector,
  shared: SharedTypes,
  types: LeafTypes,
  extras: TableExtras,
): TableTypes {
  const base = inflector.tableType(table);
  const columns = visibleColumns(table, inflector, types);
  const b: TableBuild = { table, inflector, shared, types, base, columns };
  const canInsert = table.privileges.insert || table.columns.some((c) => c.privileges.insert);
  const canUpdate = table.privileges.update || table.columns.some((c) => c.privileges.update);

  // Declared before the types so the field thunks can close over the finished record.
  let self: TableTypes;
  const node = nodeType(b, () => extras.nodeFields(self));
  const edge = edgeType(b, node);
  const aggregate = table.directives.aggregate?.enabled === true ? buildAggregate(table, base, columns, inflector, shared, types) : null;
  const connection = connectionType(b, edge, aggregate?.type ?? null);
  const filter = filterType(b, () => extras.filterFields(self));
  const orderBy = orderByType(b, () => extras.orderByFields(self));
  const insertInput = canInsert ? inputType(b, "insert", () => extras.insertFields(self)) : null;
  const updateInput = canUpdate ? inputType(b, "update", () => ({})) : null;
  const insertResponse = canInsert ? responseType(b, node, "insertResponse", "InsertResponse") : null;
  const updateResponse = canUpdate ? responseType(b, node, "updateResponse", "UpdateResponse") : null;
  const deleteResponse = table.privileges.delete ? responseType(b, node, "deleteResponse", "DeleteResponse") : null;

  // In this order in the schema's type list.
  const named = {
    node,
    connection,
    edge,
    filter,
    orderBy,
    insertInput,
    insertResponse,
    updateInput,
    updateResponse,
    deleteResponse,
  };
  self = {
    table,
    inflector,
    base,
    fieldBase: inflector.tableField(table),
    columns,
    ...named,
    aggregate: aggregate?.type ?? null,
    all: [...Object.values(named), ...(aggregate?.all ?? [])].filter(
      (t): t is GraphQLObjectType | GraphQLInputObjectType => t !== null,
    ),
  };
  return self;
}

function nodeType(b: TableBuild, extraFields: () => GraphQLFieldConfigMap<unknown, unknown>): GraphQLObjectType {
  const { table, inflector, shared, types } = b;
  return new GraphQLObjectType({
    name: b.base,
    description: table.directives.description ?? null,
    interfaces: [shared.node],
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {
        nodeId: {
          type: new GraphQLNonNull(shared.scalars.ID),
          description: "Globally Unique Record Identifier",
          extensions: resolved({ kind: "nodeId", table }),
        },
      };
      return { ...fields, ...columnFields(table, b.columns, inflector, types), ...extraFields() };
    },
    extensions: sourced({ kind: "node", table }),
  });
}

function edgeType(b: TableBuild, node: GraphQLObjectType): GraphQLObjectType {
  const table = b.table;
  return new GraphQLObjectType({
    name: `${b.base}Edge`,
    fields: () => ({
      cursor: { type: new GraphQLNonNull(GraphQLString), extensions: resolved({ kind: "cursor" }) },
      node: { type: new GraphQLNonNull(node), extensions: resolved({ kind: "edgeNode", table }) },
    }),
    extensions: sourced({ kind: "edge", table }),
  });
}

function connectionType(b: TableBuild, edge: GraphQLObjectType, aggregate: GraphQLObjectType | null): GraphQLObjectType {
  const table = b.table;
  return new GraphQLObjectType({
    name: `${b.base}Connection`,
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {
        edges: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))),
          extensions: resolved({ kind: "edges", table }),
        },
        pageInfo: { type: new GraphQLNonNull(b.shared.pageInfo), extensions: resolved({ kind: "pageInfo" }) },
      };
      if (table.directives.totalCount?.enabled === true) {
        fields["totalCount"] = {
          type: new GraphQLNonNull(GraphQLInt),
          description: "The total number of records matching the `filter` criteria",
          extensions: resolved({ kind: "totalCount" }),
        };
      }
      if (aggregate !== null) {
        fields["aggregate"] = {
          type: aggregate,
          description: `Aggregate functions calculated on the collection of \`${b.base}\``,
          extensions: resolved({ kind: "aggregate", table }),
        };
      }
      return fields;
    },
    extensions: sourced({ kind: "connection", table }),
  });
}

function filterType(b: TableBuild, extraFields: () => GraphQLInputFieldConfigMap): GraphQLInputObjectType {
  const { table, inflector, shared, types } = b;
  const filter: GraphQLInputObjectType = new GraphQLInputObjectType({
    name: `${b.base}Filter`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const column of b.columns) {
        const shape = types.shape(column);
        let type: GraphQLInputObjectType | undefined;
        if (shape.kind === "scalar") type = shared.scalarFilters.get(shape.scalar);
        else if (shape.kind === "enum") type = types.enumFilter(shape);
        else if (shape.kind === "list" && shape.element.kind === "scalar") type = shared.listFilters.get(shape.element.scalar);
        if (type === undefined) continue;
        fields[inflector.column(column)] = { type, extensions: inputResolved({ kind: "columnFilter", column }) };
      }
      fields["nodeId"] = {
        type: shared.scalarFilters.get("ID")!,
        extensions: inputResolved({ kind: "nodeIdFilter", table }),
      };
      // A column named and, or or not keeps its filter; the logic field of that name is left out.
      if (!("and" in fields)) fields["and"] = {
        type: new GraphQLList(new GraphQLNonNull(filter)),
        description: "Returns true only if all its inner filters are true, otherwise returns false",
        extensions: inputResolved({ kind: "filterAnd" }),
      };
      if (!("or" in fields)) fields["or"] = {
        type: new GraphQLList(new GraphQLNonNull(filter)),
        description: "Returns true if at least one of its inner filters is true, otherwise returns false",
        extensions: inputResolved({ kind: "filterOr" }),
      };
      if (!("not" in fields)) fields["not"] = {
        type: filter,
        description: "Negates a filter",
        extensions: inputResolved({ kind: "filterNot" }),
      };
      return withExtra(fields, extraFields());
    },
    extensions: sourced({ kind: "filter", table }),
  });
  return filter;
}

function orderByType(b: TableBuild, extraFields: () => GraphQLInputFieldConfigMap): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name: `${b.base}OrderBy`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const column of b.columns) {
        const shape = b.types.shape(column);
        if (!(shape.kind === "enum" || (shape.kind === "scalar" && shape.scalar !== "JSON"))) continue;
        fields[b.inflector.column(column)] = {
          type: b.shared.orderByDirection,
          extensions: inputResolved({ kind: "orderByColumn", column }),
        };
      }
      return withExtra(fields, extraFields());
    },
    extensions: sourced({ kind: "orderBy", table: b.table }),
  });
}

function inputType(b: TableBuild, privilege: "insert" | "update", extraFields: () => GraphQLInputFieldConfigMap): GraphQLInputObjectType {
  const { table, inflector, types } = b;
  return new GraphQLInputObjectType({
    name: `${b.base}${privilege === "insert" ? "InsertInput" : "UpdateInput"}`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const column of table.columns) {
        const name = inflector.column(column);
        if (!column.privileges[privilege] || column.isSerial || column.isGenerated || !isValidName(name)) continue;
        const type = types.leaf(types.shape(column));
        if (type === null) continue;
        fields[name] = {
          type,
          extensions: inputResolved({ kind: privilege === "insert" ? "insertColumn" : "updateColumn", column }),
        };
      }
      return withExtra(fields, extraFields());
    },
    extensions: sourced({ kind: privilege === "insert" ? "insertInput" : "updateInput", table }),
  });
}

function responseType(
  b: TableBuild,
  node: GraphQLObjectType,
  kind: "insertResponse" | "updateResponse" | "deleteResponse",
  suffix: string,
): GraphQLObjectType {
  return new GraphQLObjectType({
    name: `${b.base}${suffix}`,
    fields: () => ({
      affectedCount: {
        type: new GraphQLNonNull(GraphQLInt),
        description: AFFECTED_COUNT,
        extensions: resolved({ kind: "affectedCount" }),
      },
      records: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(node))),
        description: RECORDS,
        extensions: resolved({ kind: "records", table: b.table }),
      },
    }),
    extensions: sourced({ kind, table: b.table }),
  });
}

// Schema stage, the fixed part of the API: scalars, their filters, PageInfo, ordering and Node.
// Input: nothing but pg_graphql's conventions; output: graphql-js types shared by every table.

import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from "graphql";
import {
  inputResolved,
  resolved,
  sourced,
  type FilterOp,
  type InputResolution,
  type PageInfoField,
} from "./resolution";
import {
  ENUM_FILTER_OPS,
  LIST_FILTER_OPS,
  LIST_FILTER_SCALARS,
  SCALAR_DESCRIPTIONS,
  SCALAR_FILTER_OPS,
  type ScalarName,
} from "./scalars";

const builtin = sourced({ kind: "builtin" });

function customScalar(name: ScalarName): GraphQLScalarType {
  return new GraphQLScalarType({ name, description: SCALAR_DESCRIPTIONS[name], extensions: builtin });
}

export interface SharedTypes {
  readonly scalars: Readonly<Record<ScalarName, GraphQLScalarType>>;
  readonly filterIs: GraphQLEnumType;
  readonly orderByDirection: GraphQLEnumType;
  readonly pageInfo: GraphQLObjectType;
  readonly node: GraphQLInterfaceType;
  /** `<Scalar>Filter` by scalar name. */
  readonly scalarFilters: ReadonlyMap<ScalarName, GraphQLInputObjectType>;
  /** `<Scalar>ListFilter` by element scalar name. */
  readonly listFilters: ReadonlyMap<ScalarName, GraphQLInputObjectType>;
  /** Every named type above, for the schema's type list. */
  readonly all: readonly (GraphQLScalarType | GraphQLEnumType | GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType)[];
}

function opResolution(op: string): { resolution: InputResolution } {
  return inputResolved({ kind: "filterOp", op: op as FilterOp });
}

/** The input fields of a filter on values of `type`; `in` takes a list of them. */
function filterFields(
  type: GraphQLInputType,
  ops: readonly string[],
  filterIs: GraphQLEnumType,
): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const op of ops) {
    const fieldType = op === "is" ? filterIs : op === "in" ? new GraphQLList(new GraphQLNonNull(type)) : type;
    fields[op] = { type: fieldType, extensions: opResolution(op) };
  }
  return fields;
}

function filterDescription(typeName: string): string {
  return `Boolean expression comparing fields on type "${typeName}"`;
}

export function enumFilter(enumType: GraphQLEnumType, filterIs: GraphQLEnumType): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name: `${enumType.name}Filter`,
    description: filterDescription(enumType.name),
    fields: () => filterFields(enumType, ENUM_FILTER_OPS, filterIs),
    extensions: builtin,
  });
}

function builtinScalars(): Record<ScalarName, GraphQLScalarType> {
  return {
    Int: GraphQLInt,
    Float: GraphQLFloat,
    String: GraphQLString,
    Boolean: GraphQLBoolean,
    ID: GraphQLID,
    BigInt: customScalar("BigInt"),
    BigFloat: customScalar("BigFloat"),
    JSON: customScalar("JSON"),
    UUID: customScalar("UUID"),
    Date: customScalar("Date"),
    Time: customScalar("Time"),
    Datetime: customScalar("Datetime"),
    Opaque: customScalar("Opaque"),
    Cursor: customScalar("Cursor"),
  };
}

/** `<Scalar>Filter` per filterable scalar, and `<Scalar>ListFilter` per scalar whose lists filter. */
function filterTypes(scalars: Record<ScalarName, GraphQLScalarType>, filterIs: GraphQLEnumType) {
  const scalarFilters = new Map<ScalarName, GraphQLInputObjectType>();
  for (const [name, ops] of SCALAR_FILTER_OPS) {
    scalarFilters.set(
      name,
      new GraphQLInputObjectType({
        name: `${name}Filter`,
        description: filterDescription(name),
        fields: () => filterFields(scalars[name], ops, filterIs),
        extensions: builtin,
      }),
    );
  }
  const listFilters = new Map<ScalarName, GraphQLInputObjectType>();
  for (const name of LIST_FILTER_SCALARS) {
    listFilters.set(
      name,
      new GraphQLInputObjectType({
        name: `${name}ListFilter`,
        description: filterDescription(`${name}List`),
        fields: () => {
          const fields: GraphQLInputFieldConfigMap = {};
          const list = new GraphQLList(new GraphQLNonNull(scalars[name]));
          for (const op of LIST_FILTER_OPS) {
            fields[op] = { type: op === "is" ? filterIs : list, extensions: opResolution(op) };
          }
          return fields;
        },
        extensions: builtin,
      }),
    );
  }
  return { scalarFilters, listFilters };
}

export function buildSharedTypes(): SharedTypes {
  const scalars = builtinScalars();
  const filterIs = new GraphQLEnumType({
    name: "FilterIs",
    values: { NULL: { value: "NULL" }, NOT_NULL: { value: "NOT_NULL" } },
    extensions: builtin,
  });
  const orderByDirection = new GraphQLEnumType({
    name: "OrderByDirection",
    description: "Defines a per-field sorting order",
    values: {
      AscNullsFirst: { value: "AscNullsFirst", description: "Ascending order, nulls first" },
      AscNullsLast: { value: "AscNullsLast", description: "Ascending order, nulls last" },
      DescNullsFirst: { value: "DescNullsFirst", description: "Descending order, nulls first" },
      DescNullsLast: { value: "DescNullsLast", description: "Descending order, nulls last" },
    },
    extensions: builtin,
  });
  const pageInfoField = (field: PageInfoField) => resolved({ kind: "pageInfoField", field });
  const pageInfo = new GraphQLObjectType({
    name: "PageInfo",
    fields: {
      endCursor: { type: GraphQLString, extensions: pageInfoField("endCursor") },
      hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean), extensions: pageInfoField("hasNextPage") },
      hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean), extensions: pageInfoField("hasPreviousPage") },
      startCursor: { type: GraphQLString, extensions: pageInfoField("startCursor") },
    },
    extensions: builtin,
  });
  const node = new GraphQLInterfaceType({
    name: "Node",
    fields: {
      nodeId: { type: new GraphQLNonNull(GraphQLID), description: "Retrieves a record by `ID`" },
    },
    extensions: builtin,
  });
  const { scalarFilters, listFilters } = filterTypes(scalars, filterIs);
  return {
    scalars,
    filterIs,
    orderByDirection,
    pageInfo,
    node,
    scalarFilters,
    listFilters,
    all: [
      ...Object.values(scalars),
      filterIs,
      orderByDirection,
      pageInfo,
      node,
      ...scalarFilters.values(),
      ...listFilters.values(),
    ],
  };
}

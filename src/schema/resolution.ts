// Schema stage, resolution tags: catalog entities → what each graphql-js field and type stands for,
// attached as `extensions`; the plan stage reads them instead of re-deriving names.

import type { GraphQLArgument, GraphQLField, GraphQLInputField, GraphQLNamedType } from "graphql";
import type { Column, ForeignKey, PgFunction, Table } from "../catalog/model";

/** A foreign key seen from one end, as a field of the table on that end. */
export interface Relation {
  readonly foreignKey: ForeignKey;
  /** The table whose type carries the field. */
  readonly from: Table;
  /** The table the field leads to. */
  readonly to: Table;
  /** Column pairs joining `from` (local) to `to` (remote). */
  readonly fromColumns: readonly string[];
  readonly toColumns: readonly string[];
  /**
   * "toOne": an object field (many-to-one, or one-to-one seen from either side);
   * "toMany": a connection field (one-to-many).
   */
  readonly cardinality: "toOne" | "toMany";
}

/** What a function returns, as the API exposes it. */
export type FunctionReturn =
  | { readonly kind: "scalar"; readonly typeOid: number; readonly isArray: boolean }
  | { readonly kind: "node"; readonly table: Table }
  | { readonly kind: "connection"; readonly table: Table };

export type AggregateOp = "sum" | "avg" | "min" | "max";

export type PageInfoField = "hasNextPage" | "hasPreviousPage" | "startCursor" | "endCursor";

/** How a field of an output type resolves. */
export type Resolution =
  // Query root
  | { readonly kind: "connection"; readonly table: Table; readonly relation: Relation | null }
  | { readonly kind: "byPk"; readonly table: Table }
  | { readonly kind: "nodeInterface" }
  | { readonly kind: "function"; readonly fn: PgFunction; readonly returns: FunctionReturn }
  // Mutation root
  | { readonly kind: "insert"; readonly table: Table }
  | { readonly kind: "update"; readonly table: Table }
  | { readonly kind: "delete"; readonly table: Table }
  // Mutation responses
  | { readonly kind: "affectedCount" }
  | { readonly kind: "records"; readonly table: Table }
  // Node types (a table's row)
  | { readonly kind: "nodeId"; readonly table: Table }
  | { readonly kind: "column"; readonly table: Table; readonly column: Column }
  | { readonly kind: "relation"; readonly relation: Relation }
  | { readonly kind: "computed"; readonly table: Table; readonly fn: PgFunction; readonly returns: FunctionReturn }
  // Connection / edge / page info
  | { readonly kind: "edges"; readonly table: Table }
  | { readonly kind: "pageInfo" }
  | { readonly kind: "totalCount" }
  | { readonly kind: "aggregate"; readonly table: Table }
  | { readonly kind: "cursor" }
  | { readonly kind: "edgeNode"; readonly table: Table }
  | { readonly kind: "pageInfoField"; readonly field: PageInfoField }
  // Aggregate type: `count`, then `sum { col }` etc.
  | { readonly kind: "aggregateCount" }
  | { readonly kind: "aggregateOp"; readonly op: AggregateOp; readonly table: Table }
  | { readonly kind: "aggregateColumn"; readonly op: AggregateOp; readonly column: Column };

/** How a field of an input type (filter, order by, insert/update input) maps to the database. */
export type InputResolution =
  | { readonly kind: "columnFilter"; readonly column: Column }
  | { readonly kind: "nodeIdFilter"; readonly table: Table }
  | { readonly kind: "filterAnd" }
  | { readonly kind: "filterOr" }
  | { readonly kind: "filterNot" }
  | { readonly kind: "filterOp"; readonly op: FilterOp }
  | { readonly kind: "orderByColumn"; readonly column: Column }
  | { readonly kind: "insertColumn"; readonly column: Column }
  | { readonly kind: "updateColumn"; readonly column: Column }
  // Opt-in features: filters and ordering across relationships, nested inserts.
  /** `<relation>: <Related>Filter` (to-one) or `<relation>: <Related>RelationFilter` (to-many). */
  | { readonly kind: "relationFilter"; readonly relation: Relation }
  /** `some`, `every` and `none` of a `<Related>RelationFilter`. */
  | { readonly kind: "relationQuantifier"; readonly quantifier: RelationQuantifier }
  /** `<relation>: <Related>OrderBy` of a to-one relationship. */
  | { readonly kind: "orderByRelation"; readonly relation: Relation }
  /**
   * A relationship of an insert input: "parent" rows (the inserted row's foreign key points to
   * them) are inserted first, "child" rows (their key points to the inserted row) after it.
   */
  | { readonly kind: "insertRelation"; readonly relation: Relation; readonly side: "parent" | "child" };

export type RelationQuantifier = "some" | "every" | "none";

export type FilterOp =
  | "eq"
  | "neq"
  | "lt"
  | "lte"
  | "gt"
  | "gte"
  | "in"
  | "is"
  | "startsWith"
  | "like"
  | "ilike"
  | "regex"
  | "iregex"
  | "contains"
  | "containedBy"
  | "overlaps";

/** What a named type stands for, attached as `extensions.source` on object/input/enum types. */
export type TypeSource =
  | { readonly kind: "node"; readonly table: Table }
  | { readonly kind: "connection"; readonly table: Table }
  | { readonly kind: "edge"; readonly table: Table }
  | { readonly kind: "filter"; readonly table: Table }
  | { readonly kind: "orderBy"; readonly table: Table }
  | { readonly kind: "insertInput"; readonly table: Table }
  | { readonly kind: "updateInput"; readonly table: Table }
  | { readonly kind: "insertResponse"; readonly table: Table }
  | { readonly kind: "updateResponse"; readonly table: Table }
  | { readonly kind: "deleteResponse"; readonly table: Table }
  | { readonly kind: "aggregate"; readonly table: Table }
  | { readonly kind: "aggregateFields"; readonly table: Table; readonly op: AggregateOp }
  /** `values` maps each GraphQL enum value name to its database label. */
  | { readonly kind: "enum"; readonly typeOid: number; readonly values: Readonly<Record<string, string>> }
  // Opt-in features.
  | { readonly kind: "relationFilter"; readonly table: Table }
  | { readonly kind: "objRelInsertInput"; readonly table: Table }
  | { readonly kind: "arrRelInsertInput"; readonly table: Table }
  | { readonly kind: "onConflict"; readonly table: Table }
  /** The enum's values are the constraints' names. */
  | { readonly kind: "uniqueConstraint"; readonly table: Table }
  /** The enum's values name columns (each value's `value` is the column name). */
  | { readonly kind: "updateField"; readonly table: Table }
  | { readonly kind: "builtin" };

// The builders tag with these; the readers below are the only other code that knows the keys.

export function resolved(resolution: Resolution): { resolution: Resolution } {
  return { resolution };
}

export function inputResolved(resolution: InputResolution): { resolution: InputResolution } {
  return { resolution };
}

export function sourced(source: TypeSource): { source: TypeSource } {
  return { source };
}

export function resolutionOf(field: GraphQLField<unknown, unknown>): Resolution | undefined {
  return (field.extensions as { resolution?: Resolution } | undefined)?.resolution;
}

export function inputResolutionOf(field: GraphQLInputField): InputResolution | undefined {
  return (field.extensions as { resolution?: InputResolution } | undefined)?.resolution;
}

export function typeSourceOf(type: GraphQLNamedType): TypeSource | undefined {
  return (type.extensions as { source?: TypeSource } | undefined)?.source;
}

/**
 * A function argument's default as introspection prints it: pg_graphql shows the SQL default
 * when it is a plain literal, null otherwise (so the text is fixed while building the schema).
 */
export function printedDefault(text: string | null): { printedDefault: string | null } {
  return { printedDefault: text };
}

/** The printed default of an argument tagged with printedDefault(); undefined when untagged. */
export function printedDefaultOf(value: GraphQLArgument | GraphQLInputField): string | null | undefined {
  return (value.extensions as { printedDefault?: string | null } | undefined)?.printedDefault;
}

// Plan stage, output types: what one operation asks of the database, with every user value
// already checked and held in a bound-parameter node. The transpile stage turns it into SQL.

import type { CollectedField } from "../document/collectFields";
import type { PgFunction, Table } from "../catalog/model";
import type { Relation, RelationQuantifier } from "../schema/resolution";
import type { Direction, EnumLiteral, Nulls, ParamNode, SqlType } from "../sql/ast";

export interface OperationPlan {
  /** Mutation fields run in order, in the request's one transaction. */
  kind: "query" | "mutation";
  fields: RootFieldPlan[];
}

export type RootFieldPlan =
  | { kind: "typename"; key: string; value: string }
  | { kind: "connection"; key: string; connection: ConnectionPlan }
  | { kind: "row"; key: string; table: Table; source: RowSource; node: NodePlan }
  /** Answered by graphql-js against the introspection schema. */
  | { kind: "introspection"; key: string; field: CollectedField }
  /** A value known without the database (e.g. a node id naming no exposed table). */
  | { kind: "null"; key: string }
  /** A field reported in `errors` and left out of `data` while the other fields still resolve. */
  | { kind: "error"; key: string; message: string }
  | { kind: "scalarFunction"; key: string; fn: PgFunction; args: FunctionCallArg[]; output: OutputKind }
  | { kind: "write"; key: string; write: WritePlan; fields: WriteResultFieldPlan[] };

/** An insert, update or delete and the guard on how many rows it may touch. */
export type WritePlan =
  | {
      kind: "insert";
      table: Table;
      columns: string[];
      /** One list per object, in `columns` order; null where the object leaves the column out. */
      rows: (ParamNode | null)[][];
      /** `ON CONFLICT`, when the request asks for an upsert. */
      onConflict?: OnConflictPlan;
    }
  /**
   * An insert with related rows inserted along (opt-in): one statement per group, in order (the
   * parents a group refers to before it, the children referring to it after), then the
   * selection of the `root` group's rows, which sees them all.
   */
  | {
      kind: "nestedInsert";
      table: Table;
      groups: InsertGroupPlan[];
      root: number;
      /** The root rows' primary key: each column's index among the root group's `returns`, and its type. */
      key: { column: number; type: SqlType }[];
    }
  | { kind: "update"; table: Table; set: { column: string; value: ParamNode }[]; filter: FilterPlan | null; atMost: ParamNode }
  | { kind: "delete"; table: Table; filter: FilterPlan | null; atMost: ParamNode };

/** `ON CONFLICT ON CONSTRAINT ... DO UPDATE SET <update> = excluded.<update> WHERE <filter>`, or `DO NOTHING`. */
export interface OnConflictPlan {
  constraint: string;
  /** Columns taken from the proposed row; none: `DO NOTHING`. */
  update: string[];
  filter: FilterPlan | null;
}

/** The rows of one table a nested insert inserts in one statement. */
export interface InsertGroupPlan {
  table: Table;
  columns: string[];
  /** One list per row, in `columns` order; null inserts the column's default. */
  rows: InsertValuePlan[][];
  /** Columns the statement hands back (as text), in the order `inserted` values and `key` index them. */
  returns: string[];
}

export type InsertValuePlan =
  | ParamNode
  | null
  /** A value of a row an earlier group inserted: its `returns[column]`, as `type`. */
  | { kind: "inserted"; group: number; row: number; column: number; type: SqlType };

export type WriteResultFieldPlan =
  | { kind: "typename"; key: string; value: string }
  | { kind: "affectedCount"; key: string }
  | { kind: "records"; key: string; node: NodePlan };

/** Which single row a root object field reads. */
export type RowSource =
  | { kind: "primaryKey"; values: ParamNode[] }
  | { kind: "function"; fn: PgFunction; args: FunctionCallArg[] };

export interface FunctionCallArg {
  name: string;
  value: ParamNode;
}

/** How a column or scalar value becomes JSON. */
export type OutputKind =
  | { kind: "json" }
  /** Int and Boolean (int2, int4, bool): the value's text is its JSON already. */
  | { kind: "intOrBoolean" }
  /** BigInt, BigFloat and JSON are strings on output. */
  | { kind: "text" }
  | { kind: "enum"; mapping: { label: string; name: string }[] }
  | { kind: "textArray" }
  /**
   * A numeric aggregate as a JSON number with every digit, printed as a 64-bit float prints
   * (`2.5`, `2.0` for a fractional type holding a whole number, `10` for an integer).
   */
  | { kind: "decimal" };

export interface NodePlan {
  table: Table;
  fields: NodeFieldPlan[];
}

export type NodeFieldPlan =
  | { kind: "typename"; key: string; value: string }
  | { kind: "column"; key: string; column: string; output: OutputKind }
  | { kind: "nodeId"; key: string; table: Table }
  | { kind: "toOne"; key: string; relation: Relation; node: NodePlan }
  | { kind: "toMany"; key: string; relation: Relation; connection: ConnectionPlan }
  | { kind: "computedScalar"; key: string; fn: PgFunction; output: OutputKind }
  | { kind: "computedRow"; key: string; fn: PgFunction; node: NodePlan }
  | { kind: "computedConnection"; key: string; fn: PgFunction; connection: ConnectionPlan };

export type ConnectionSource =
  | { kind: "table" }
  /** A set-returning function; `self` passes the parent row (computed fields). */
  | { kind: "function"; fn: PgFunction; args: FunctionCallArg[]; passParentRow: boolean }
  /**
   * A volatile set-returning function at the root (a mutation): called once, its rows then read
   * by every scan of the connection (page, totalCount, aggregate) so its effects happen once.
   */
  | { kind: "calledOnce"; fn: PgFunction; args: FunctionCallArg[] };

export interface OrderPlan {
  column: string;
  direction: Direction;
  nulls: Nulls;
  /** A column of a related row (opt-in): the to-one relationships leading to it from the row. */
  via?: Relation[];
}

export interface CursorPlan {
  /** One value per order column from the first on, already typed: at most one per column. */
  values: ParamNode[];
  /**
   * Which values are null, known while planning: the predicate then compares plainly (`col > $n`,
   * which an index can serve) instead of testing the parameter for null in the statement.
   */
  nulls: boolean[];
}

export interface ConnectionPlan {
  table: Table;
  source: ConnectionSource;
  filter: FilterPlan | null;
  /** The requested order with the primary key appended as the tiebreaker. */
  order: OrderPlan[];
  /** `last` pages are read in reverse and flipped back. */
  backward: boolean;
  pageSize: ParamNode;
  offset: ParamNode | null;
  after: CursorPlan | null;
  before: CursorPlan | null;
  fields: ConnectionFieldPlan[];
}

export type ConnectionFieldPlan =
  | { kind: "typename"; key: string; value: string }
  | { kind: "totalCount"; key: string }
  | { kind: "pageInfo"; key: string; fields: PageInfoFieldPlan[] }
  | { kind: "edges"; key: string; fields: EdgeFieldPlan[] }
  | { kind: "aggregate"; key: string; fields: AggregateFieldPlan[] };

export type PageInfoFieldPlan =
  | { kind: "typename"; key: string; value: string }
  | { kind: "hasNextPage"; key: string }
  | { kind: "hasPreviousPage"; key: string }
  | { kind: "startCursor"; key: string }
  | { kind: "endCursor"; key: string };

export type EdgeFieldPlan =
  | { kind: "typename"; key: string; value: string }
  | { kind: "cursor"; key: string }
  | { kind: "node"; key: string; node: NodePlan };

export type AggregateFieldPlan =
  | { kind: "typename"; key: string; value: string }
  | { kind: "count"; key: string }
  | {
      kind: "op";
      key: string;
      op: "sum" | "avg" | "min" | "max";
      fields: (
        | { kind: "typename"; key: string; value: string }
        /** `numericInput`: the column is read as numeric (so an average of floats cannot overflow). */
        | { kind: "column"; key: string; column: string; output: OutputKind; numericInput: boolean }
      )[];
    };

export type FilterPlan =
  | { kind: "and"; items: FilterPlan[] }
  | { kind: "or"; items: FilterPlan[] }
  | { kind: "not"; item: FilterPlan }
  | { kind: "compare"; column: string; op: CompareOp; value: ParamNode | EnumLiteral }
  | { kind: "isNull"; column: string; negated: boolean }
  /** The row's primary key equals the given values (a `nodeId` filter). */
  | { kind: "primaryKey"; values: ParamNode[] }
  /**
   * Related rows (opt-in) through `relation`: its one row exists and matches ("toOne"), some
   * match, all match (or there are none), or none matches.
   */
  | { kind: "related"; relation: Relation; quantifier: "toOne" | RelationQuantifier; filter: FilterPlan };

export type CompareOp =
  | "eq" | "neq" | "lt" | "lte" | "gt" | "gte"
  | "in" | "startsWith" | "like" | "ilike" | "regex" | "iregex"
  | "contains" | "containedBy" | "overlaps";

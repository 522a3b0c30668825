// SQL stage: the typed SQL tree the transpile stage builds and `renderSql` turns into text + parameters.
// Nothing here holds SQL text; user values only ever appear inside `param` nodes (an enum's labels,
// catalog constants a request chooses among, may also be `enumLiteral`s).

/** A type reference for casts; rendered through the one identifier-quoting function. */
export interface SqlType {
  schema: string | null;
  name: string;
  array: boolean;
  /** An enum type (its values are labels): see `bindTypeName`. */
  enum?: boolean;
}

/**
 * A bound value. `value` is always text (or null), cast to `type` in the statement; it is bound
 * as text, or as the enum itself for an enum (`bindTypeName`).
 */
export interface ParamNode {
  kind: "param";
  value: string | null;
  type: SqlType;
  /**
   * Set on a value known only once the statements before it have run (a nested insert's later
   * statements read the keys the earlier ones inserted): see ResultLink.
   */
  link?: ResultLink;
}

/**
 * A parameter bound from the `result` of the statement at index `step` among those of the same
 * root field: the whole result, or one text value of it (a JSON list of rows, each a list of
 * text values), bound as the parameter's type. A value bound alone keeps the statement free of
 * JSON operators that PostgreSQL would set up and run once per row.
 */
export type ResultLink = { kind: "result"; step: number } | { kind: "value"; step: number; row: number; column: number };

/**
 * Labels of an enum type, written into the statement: `text` is one label, or the array input
 * text of a set of them when `type` is the enum's array type. Each label comes from the catalog
 * (a request only chooses among the enum's values), so a query text renders to one statement per
 * label or set of labels, and the caches of statements and plans are bounded. A plan then sees
 * the constant: the column's statistics decide its row estimate, and the generic plan a prepared
 * statement switches to after five executions keeps it, where with a parameter it would plan for
 * an average label (a bitmap scan over a third of the rows where an index-only scan was right,
 * three times slower on the bench's filtered count).
 */
export interface EnumLiteral {
  kind: "enumLiteral";
  text: string;
  type: SqlType;
}

/** Comparison and other binary operators the planner may use; a closed set, never user text. */
export type BinaryOp =
  | "=" | "<>" | "<" | "<=" | ">" | ">="
  | "like" | "ilike" | "~" | "~*"
  | "@>" | "<@" | "&&"
  | "is distinct from" | "is not distinct from"
  | "+" | "-" | "||"
  /** jsonb element (`->`) and element as text (`->>`). */
  | "->" | "->>";

export type Expr =
  | { kind: "column"; table: string; name: string }
  /** `(expr).field`: a field of a composite value, e.g. of the row carried through a subquery. */
  | { kind: "field"; expr: Expr; name: string }
  /** A whole row of a FROM item, by its alias (used to call computed-field functions). */
  | { kind: "row"; table: string }
  | ParamNode
  | { kind: "int"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "null" }
  /** A string constant chosen by the planner (encoding names and the like); never user data. */
  | { kind: "text"; value: string }
  | EnumLiteral
  | { kind: "call"; schema: string | null; name: string; args: Expr[]; orderBy?: OrderItem[]; filter?: Expr }
  | { kind: "countStar" }
  | { kind: "rowNumber"; orderBy: OrderItem[] }
  | { kind: "binary"; op: BinaryOp; left: Expr; right: Expr }
  | { kind: "and"; items: Expr[] }
  | { kind: "or"; items: Expr[] }
  | { kind: "not"; expr: Expr }
  | { kind: "isNull"; expr: Expr; negated: boolean }
  | { kind: "cast"; expr: Expr; type: SqlType }
  | { kind: "case"; whens: { when: Expr; then: Expr }[]; else: Expr }
  | { kind: "subquery"; select: Select }
  | { kind: "exists"; select: Select }
  | { kind: "anyOf"; expr: Expr; array: Expr }
  /** `(array)[index]`: an array element by its (1-based) subscript. */
  | { kind: "element"; array: Expr; index: Expr }
  | JsonExpr;

/**
 * The response's JSON, built as text by concatenation: every node renders as a text expression
 * holding exactly one JSON value, never SQL NULL, so members and items join without conversion.
 */
export type JsonExpr =
  /** `{"key":value,...}`; keys are planner-chosen names, escaped when rendered. */
  | { kind: "jsonObject"; entries: JsonEntry[] }
  /** `[item,...]` over the rows of the enclosing aggregate query (in `orderBy`, those passing `filter`); `[]` for none. */
  | { kind: "jsonAgg"; item: JsonExpr; orderBy: OrderItem[]; filter: Expr | null }
  /**
   * An SQL value as to_json writes it; SQL NULL as `null`. `via: "text"` for values whose text
   * already is that JSON (integers, booleans), sparing to_json's type lookup on every call.
   */
  | { kind: "jsonValue"; expr: Expr; via: "to_json" | "text" }
  /** The JSON value a subquery selects as its one column, `null` when it finds no row. */
  | { kind: "jsonSubquery"; select: Select };

export interface JsonEntry {
  key: string;
  value: JsonExpr;
}

export type Direction = "asc" | "desc";
export type Nulls = "first" | "last";

export interface OrderItem {
  expr: Expr;
  direction: Direction;
  nulls: Nulls;
}

export type FromItem =
  | { kind: "table"; schema: string; name: string; alias: string }
  | { kind: "subquery"; select: Select; alias: string }
  /** A common table expression of the enclosing statement, by name. */
  | { kind: "cte"; name: string; alias: string }
  | { kind: "function"; schema: string; name: string; args: FunctionArg[]; alias: string };

/** A function argument, optionally passed by name (`name => value`). */
export interface FunctionArg {
  name: string | null;
  value: Expr;
}

export interface Select {
  /** Common table expressions; data-modifying ones carry the writes of a mutation. */
  with?: { name: string; statement: WriteStatement }[];
  columns: { expr: Expr; alias: string }[];
  from: FromItem | null;
  where: Expr | null;
  orderBy: OrderItem[];
  limit: Expr | null;
  offset: Expr | null;
}

export function select(partial: Partial<Select> & Pick<Select, "columns">): Select {
  return {
    from: null,
    where: null,
    orderBy: [],
    limit: null,
    offset: null,
    ...partial,
  };
}

// Small constructors keep the planner readable.
export const col = (table: string, name: string): Expr => ({ kind: "column", table, name });
export const text = (value: string): Expr => ({ kind: "text", value });
export const int = (value: number): Expr => ({ kind: "int", value });
export const bool = (value: boolean): Expr => ({ kind: "bool", value });
export const nullExpr: Expr = { kind: "null" };
export const call = (name: string, ...args: Expr[]): Expr => ({ kind: "call", schema: null, name, args });
export const and = (...items: Expr[]): Expr => ({ kind: "and", items });
export const or = (...items: Expr[]): Expr => ({ kind: "or", items });
export const binary = (op: BinaryOp, left: Expr, right: Expr): Expr => ({ kind: "binary", op, left, right });
export const pgType = (name: string, array = false): SqlType => ({ schema: "pg_catalog", name, array });
export const param = (value: string | null, type: SqlType): ParamNode => ({ kind: "param", value, type });
export const jsonValue = (expr: Expr): JsonExpr => ({ kind: "jsonValue", expr, via: "to_json" });
/** An integer or boolean as JSON: its text. */
export const jsonNumberOrBool = (expr: Expr): JsonExpr => ({ kind: "jsonValue", expr, via: "text" });
/** A subquery selecting one JSON value (a `JsonExpr` as its only column). */
export const jsonSubquery = (partial: Partial<Select>, value: JsonExpr): JsonExpr => ({
  kind: "jsonSubquery",
  select: select({ ...partial, columns: [{ expr: value, alias: "json" }] }),
});

/** What a write hands back: the columns its result needs, as in a SELECT list. */
export type Returning = { expr: Expr; alias: string }[];

/**
 * `on conflict on constraint <constraint>`: `do nothing` without columns to set, else
 * `do update set <c> = excluded.<c>, ... where <where>` (the existing row under the insert's alias).
 */
export interface OnConflict {
  constraint: string;
  set: string[];
  where: Expr | null;
}

/** Writes, always aliased so RETURNING can name the written row (`returning "t"`). */
export type WriteStatement =
  | {
      kind: "insert";
      schema: string;
      table: string;
      alias: string;
      columns: string[];
      /** One list per row; `null` entries insert the column default. */
      rows: (Expr | null)[][];
      returning: Returning;
      onConflict?: OnConflict;
    }
  | { kind: "update"; schema: string; table: string; alias: string; set: { column: string; value: Expr }[]; where: Expr | null; returning: Returning }
  | { kind: "delete"; schema: string; table: string; alias: string; where: Expr | null; returning: Returning };

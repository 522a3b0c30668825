// Catalog stage, model: the typed picture of what the current role may see in the database.
// Built by parseCatalog() from the reflection query's json document; read by the schema stage.

/** Comment directive of a schema: `@graphql({"inflect_names": ..., "max_rows": ..., "introspection": ...})`. */
export interface SchemaDirectives {
  readonly inflectNames: boolean;
  readonly maxRows: number;
  readonly introspection: boolean;
  /** Opt-in features beyond pg_graphql's API, present only when the directive names one. */
  readonly features?: FeatureSwitches;
}

/**
 * The opt-in features (`"upsert"`, `"nested_mutations"`, `"relation_filters"`,
 * `"relation_order_by"`), each only where the directive names it; a table's setting wins over its
 * schema's.
 */
export interface FeatureSwitches {
  readonly upsert?: boolean;
  readonly nestedMutations?: boolean;
  readonly relationFilters?: boolean;
  readonly relationOrderBy?: boolean;
}

export type Feature = keyof FeatureSwitches;

export interface SchemaInfo {
  readonly oid: number;
  readonly name: string;
  readonly comment: string | null;
  readonly directives: SchemaDirectives;
}

/** How a PostgreSQL type maps onto the API; `oid` is the key columns and arguments refer to. */
export type PgType =
  | {
      readonly kind: "base";
      readonly oid: number;
      readonly schema: string;
      readonly name: string;
    }
  | {
      readonly kind: "enum";
      readonly oid: number;
      readonly schema: string;
      readonly name: string;
      readonly values: readonly string[];
      readonly comment: string | null;
      readonly directives: EnumDirectives;
      /** On the search path and the role has USAGE: otherwise it surfaces as Opaque. */
      readonly exposed: boolean;
    }
  | {
      readonly kind: "array";
      readonly oid: number;
      readonly schema: string;
      readonly name: string;
      readonly elementOid: number;
    }
  | {
      readonly kind: "domain";
      readonly oid: number;
      readonly schema: string;
      readonly name: string;
      readonly baseOid: number;
    }
  | {
      readonly kind: "composite";
      readonly oid: number;
      readonly schema: string;
      readonly name: string;
      /** The table/view whose row type this is, if any. */
      readonly relationOid: number | null;
    }
  | {
      readonly kind: "pseudo";
      readonly oid: number;
      readonly schema: string;
      readonly name: string;
    };

export interface EnumDirectives {
  readonly name?: string;
  /** Database label → GraphQL enum value name. */
  readonly mappings?: Readonly<Record<string, string>>;
}

/** Column/function directive: `@graphql({"name": ..., "description": ...})`. */
export interface NameDirectives {
  readonly name?: string;
  readonly description?: string;
}

export interface ForeignKeyDirective {
  readonly localName?: string;
  readonly localColumns: readonly string[];
  readonly foreignName?: string;
  readonly foreignSchema: string;
  readonly foreignTable: string;
  readonly foreignColumns: readonly string[];
}

export interface TableDirectives {
  readonly name?: string;
  readonly description?: string;
  readonly totalCount?: { readonly enabled: boolean };
  readonly aggregate?: { readonly enabled: boolean };
  readonly primaryKeyColumns?: readonly string[];
  readonly foreignKeys?: readonly ForeignKeyDirective[];
  readonly maxRows?: number;
  readonly features?: FeatureSwitches;
}

export type RelationKind = "table" | "view" | "materializedView" | "foreignTable" | "partitionedTable";

export interface Privileges {
  readonly select: boolean;
  readonly insert: boolean;
  readonly update: boolean;
  readonly delete: boolean;
}

export interface Column {
  readonly attnum: number;
  readonly name: string;
  readonly typeOid: number;
  /** Declared length of varchar(n) / char(n) columns and their arrays: longer input values are refused. */
  readonly maxLength: number | null;
  readonly notNull: boolean;
  readonly hasDefault: boolean;
  readonly isGenerated: boolean;
  /** Filled from a sequence (serial or identity): left out of insert and update inputs. */
  readonly isSerial: boolean;
  readonly comment: string | null;
  readonly directives: NameDirectives;
  /** Column-level privileges of the current role (table grants included). */
  readonly privileges: { readonly select: boolean; readonly insert: boolean; readonly update: boolean };
}

export interface UniqueIndex {
  readonly columns: readonly string[];
  readonly isPartial: boolean;
  readonly isPrimaryKey: boolean;
  /** The primary key or unique constraint the index belongs to, if any (an upsert names it). */
  readonly constraint?: { readonly name: string; readonly deferrable: boolean };
}

/** A foreign key constraint, or one declared through the `foreign_keys` table directive. */
export interface ForeignKey {
  /** Constraint name; null for directive-declared keys. */
  readonly name: string | null;
  readonly localTableOid: number;
  readonly localColumns: readonly string[];
  readonly foreignTableOid: number;
  readonly foreignColumns: readonly string[];
  readonly comment: string | null;
  /** From the constraint comment or the directive: `local_name` / `foreign_name`. */
  readonly localName?: string;
  readonly foreignName?: string;
}

export interface Table {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  readonly kind: RelationKind;
  readonly isPartition: boolean;
  readonly rlsEnabled: boolean;
  readonly comment: string | null;
  readonly directives: TableDirectives;
  /** In attnum order; dropped columns excluded, unselectable ones kept (privileges say so). */
  readonly columns: readonly Column[];
  /** Primary key column names; from the constraint or the `primary_key_columns` directive. */
  readonly primaryKey: readonly string[];
  readonly uniqueIndexes: readonly UniqueIndex[];
  /** Keys whose local side is this table. */
  readonly foreignKeys: readonly ForeignKey[];
  readonly privileges: Privileges;
}

export type Volatility = "immutable" | "stable" | "volatile";

export interface FunctionArg {
  /** Null when the argument has no name (such functions are not exposed). */
  readonly name: string | null;
  readonly typeOid: number;
  readonly hasDefault: boolean;
  /** The default expression as PostgreSQL prints it (e.g. `'hello'::text`), when there is one. */
  readonly defaultSql: string | null;
}

export interface PgFunction {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  /** Input arguments only (IN / INOUT / VARIADIC), in declaration order. */
  readonly args: readonly FunctionArg[];
  readonly returnTypeOid: number;
  readonly returnsSet: boolean;
  /** prorows: `setof ... rows 1` makes a computed field an object instead of a connection. */
  readonly rows: number;
  readonly volatility: Volatility;
  readonly isVariadic: boolean;
  /** Another function of the same schema and name exists (overloads are not exposed). */
  readonly isOverloaded: boolean;
  readonly canExecute: boolean;
  readonly comment: string | null;
  readonly directives: NameDirectives;
}

export interface Catalog {
  readonly role: string;
  /** Schemas of the search path the role has USAGE on, in search-path order. */
  readonly schemas: readonly SchemaInfo[];
  readonly tables: readonly Table[];
  readonly types: readonly PgType[];
  readonly functions: readonly PgFunction[];
  /**
   * Set when a comment directive could not be read: every request then answers with this
   * message instead of data.
   */
  readonly loadError: string | null;
}

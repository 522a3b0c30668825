// Schema stage, entry point: catalog model → ApiSchema (graphql-js types tagged with resolutions).
// Decides what is exposed, wires relationships and functions, and builds Query and Mutation.

import { GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType } from "graphql";
import type { GraphQLFieldConfig, GraphQLFieldConfigArgumentMap, GraphQLFieldConfigMap, GraphQLNamedType } from "graphql";
import type { Catalog, PgFunction, PgType, SchemaDirectives, Table } from "../catalog/model";
import { DEFAULT_MAX_ROWS } from "../catalog/directives";
import { unreachable } from "../util/invariant";
import type { ApiSchema } from "./apiSchema";
import {
  computedFunctions,
  exposedFunctions,
  functionsByRowArgument,
  takesRow,
  type ExposedFunction,
} from "./functionFields";
import { Inflector, isGraphQLName, isValidName } from "./inflection";
import { lazySchema } from "./lazySchema";
import { collectRelations } from "./relations";
import { printedDefault, resolved, sourced, type Relation } from "./resolution";
import { TypeMapper, type ScalarName, type TypeShape } from "./scalars";
import { buildSharedTypes, enumFilter, type SharedTypes } from "./sharedTypes";
import { buildTableTypes, connectionArgs, TABLE_TYPE_SUFFIXES, type LeafType, type TableTypes, type LeafTypes } from "./tableTypes";
import { RowTypes } from "./rowTypes";

type EnumPgType = Extract<PgType, { kind: "enum" }>;

const DEFAULT_SETTINGS: SchemaDirectives = { inflectNames: false, maxRows: DEFAULT_MAX_ROWS, introspection: false };

/** Names graphql-js or the API itself use besides the shared types. */
const RESERVED_NAMES = ["Query", "Mutation", "Subscription"];

/** Primary key column types a `<x>ByPk` field can take as arguments. */
const BY_PK_SCALARS: ReadonlySet<ScalarName> = new Set(["Int", "BigInt", "String", "UUID"]);

/** Tables, views etc. that the API exposes: a key, a selectable column, a usable name. */
function isExposed(table: Table, inflector: Inflector): boolean {
  if (table.kind === "partitionedTable") return false;
  if (table.primaryKey.length === 0) return false;
  if (!table.primaryKey.every((k) => table.columns.some((c) => c.name === k))) return false;
  if (!table.columns.some((c) => c.privileges.select)) return false;
  return isValidName(inflector.tableType(table));
}

class Builder {
  readonly shared: SharedTypes = buildSharedTypes();
  readonly types: TypeMapper;
  readonly inflectors = new Map<string, Inflector>();
  readonly tables = new Map<number, TableTypes>();
  readonly enums = new Map<number, { type: GraphQLEnumType; filter: GraphQLInputObjectType }>();
  /** Filled by build() once every table has its types; read by the node types' field thunks. */
  private relationsByTable: ReadonlyMap<number, readonly Relation[]> = new Map();
  private readonly resolver: LeafTypes;

  constructor(
    private readonly catalog: Catalog,
    /** A part of the catalog: the root `node` field, which may reach any relation, is left out. */
    private readonly partial = false,
  ) {
    this.types = new TypeMapper(catalog.types);
    for (const name of [...this.shared.all.map((t) => t.name), ...RESERVED_NAMES]) this.claimed.set(name, "builtin");
    for (const s of catalog.schemas) this.inflectors.set(s.name, new Inflector(s.directives.inflectNames));
    this.resolver = {
      shape: (column) => this.nameable(this.types.shape(column.typeOid)),
      leaf: (shape) => this.leaf(shape),
      enumFilter: (shape) => this.enumOf(shape.type).filter,
    };
  }

  private exposedTablesCache: Map<number, Table> | null = null;
  private rowFunctions: Map<number, PgFunction[]> | null = null;

  /** Exposed tables by oid; complete once build() has created every table's types. */
  exposedTables(): ReadonlyMap<number, Table> {
    this.exposedTablesCache ??= new Map([...this.tables].map(([oid, t]) => [oid, t.table]));
    return this.exposedTablesCache;
  }

  /** Relations without a key, for functions returning one of their rows; made once every table has its types. */
  private rowTypesCache: RowTypes | null = null;
  private rowTypes(): RowTypes {
    this.rowTypesCache ??= new RowTypes(this.catalog.tables, this.tables, this.resolver, {
      inflector: (schema) => this.inflector(schema),
      claim: (names, owner) => this.claim(names, owner),
    });
    return this.rowTypesCache;
  }

  inflector(schema: string): Inflector {
    return this.inflectors.get(schema) ?? new Inflector(false);
  }

  enumOf(t: EnumPgType): { type: GraphQLEnumType; filter: GraphQLInputObjectType } {
    let e = this.enums.get(t.oid);
    if (e === undefined) {
      const values: Record<string, { value: string }> = {};
      const mapping: Record<string, string> = {};
      for (const label of t.values) {
        const name = t.directives.mappings?.[label] ?? label;
        if (!isGraphQLName(name)) continue;
        values[name] = { value: label };
        mapping[name] = label;
      }
      const type = new GraphQLEnumType({
        name: this.inflector(t.schema).enumType(t),
        values,
        extensions: sourced({ kind: "enum", typeOid: t.oid, values: mapping }),
      });
      e = { type, filter: enumFilter(type, this.shared.filterIs) };
      this.enums.set(t.oid, e);
    }
    return e;
  }

  /** Type names in use, with who holds them; built-in names are held from the start. */
  private readonly claimed = new Map<string, string>();

  /** Takes every name for `owner`, or none of them when one is held by someone else. */
  private claim(names: readonly string[], owner: string): boolean {
    if (names.some((n) => (this.claimed.get(n) ?? owner) !== owner)) return false;
    for (const n of names) this.claimed.set(n, owner);
    return true;
  }

  /**
   * Enums whose name GraphQL cannot carry, or that another type already holds, surface as
   * Opaque, like enums off the search path.
   */
  nameable(shape: TypeShape): TypeShape {
    if (shape.kind === "enum") {
      const name = this.inflector(shape.type.schema).enumType(shape.type);
      if (!isValidName(name) || !this.claim([name, `${name}Filter`], `enum:${shape.type.oid}`)) {
        return { kind: "scalar", scalar: "Opaque" };
      }
    }
    if (shape.kind === "list") {
      const element = this.nameable(shape.element);
      return element === shape.element ? shape : { kind: "list", element };
    }
    return shape;
  }

  /** The one graphql-js type of a shape, for arguments and results alike. */
  leaf(shape: TypeShape): LeafType | null {
    switch (shape.kind) {
      case "scalar":
        return this.shared.scalars[shape.scalar];
      case "enum":
        return this.enumOf(shape.type).type;
      case "list": {
        const element = this.leaf(shape.element);
        return element === null ? null : new GraphQLList(element);
      }
      case "composite":
      case "unsupported":
        return null;
      default:
        return unreachable(shape, "shape");
    }
  }

  build(): ApiSchema {
    const catalog = this.catalog;
    this.addTables();
    const { queryFields, mutationFields } = this.rootFields();
    const query = new GraphQLObjectType({
      name: "Query",
      description: "The root type for querying data",
      fields: sortFields(queryFields),
      extensions: sourced({ kind: "builtin" }),
    });
    const mutation =
      Object.keys(mutationFields).length === 0
        ? null
        : new GraphQLObjectType({
            name: "Mutation",
            description: "The root type for creating and mutating data",
            fields: sortFields(mutationFields),
            extensions: sourced({ kind: "builtin" }),
          });
    const graphql = lazySchema({ query, mutation, types: dedupeByName(this.namedTypes()) });
    return {
      graphql,
      introspection: null,
      catalog,
      settings: catalog.schemas[0]?.directives ?? DEFAULT_SETTINGS,
      loadError: catalog.loadError,
    };
  }

  private addTables(): void {
    for (const table of this.catalog.tables) {
      const inflector = this.inflector(table.schema);
      if (!isExposed(table, inflector)) continue;
      // A table whose type names are taken (a built-in, or a table earlier on the search path
      // inflected to the same names) is left out rather than breaking the whole schema.
      const base = inflector.tableType(table);
      if (!this.claim(TABLE_TYPE_SUFFIXES.map((suffix) => base + suffix), `table:${table.oid}`)) continue;
      this.tables.set(
        table.oid,
        buildTableTypes(table, inflector, this.shared, this.resolver, (t) => this.nodeExtraFields(t)),
      );
    }
    this.relationsByTable = collectRelations(this.tables);
  }

  private rootFields(): Record<"queryFields" | "mutationFields", GraphQLFieldConfigMap<unknown, unknown>> {
    const rootFunctions = exposedFunctions(this.catalog.functions, this.types, this.exposedTables()).filter(
      (f) => !takesRow(f.fn, this.types),
    );

    const queryFields: GraphQLFieldConfigMap<unknown, unknown> = {};
    const mutationFields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const t of this.tables.values()) {
      queryFields[`${t.fieldBase}Collection`] = {
        type: new GraphQLNonNull(t.connection),
        description: `A pagable collection of type \`${t.base}\``,
        args: connectionArgs(t, this.shared),
        extensions: resolved({ kind: "connection", table: t.table, relation: null }),
      };
      const byPk = this.byPkField(t);
      if (byPk !== null) queryFields[`${t.fieldBase}ByPk`] = byPk;
      this.addMutations(t, mutationFields);
    }
    if (!this.partial) {
      queryFields["node"] = {
        type: this.shared.node,
        description: "Retrieve a record by its `ID`",
        args: { nodeId: { type: new GraphQLNonNull(this.shared.scalars.ID), description: "The record's `ID`" } },
        extensions: resolved({ kind: "nodeInterface" }),
      };
    }
    for (const f of rootFunctions) {
      const inflector = this.inflector(f.fn.schema);
      const name = inflector.function(f.fn);
      if (!isValidName(name)) continue;
      const field = this.functionField(f, inflector);
      if (field === null) continue;
      const target = f.fn.volatility === "volatile" ? mutationFields : queryFields;
      if (target[name] !== undefined) continue;
      target[name] = { ...field, extensions: resolved({ kind: "function", fn: f.fn, returns: f.returns }) };
    }
    return { queryFields, mutationFields };
  }

  private namedTypes(): GraphQLNamedType[] {
    const named: GraphQLNamedType[] = [...this.shared.all];
    for (const t of this.tables.values()) named.push(...t.all);
    for (const e of this.enums.values()) named.push(e.type, e.filter);
    // Enums on the search path are part of the API even when no column uses them.
    for (const t of this.catalog.types) {
      if (t.kind !== "enum" || !t.exposed) continue;
      const shape = this.nameable({ kind: "enum", type: t });
      if (shape.kind !== "enum") continue;
      const e = this.enumOf(t);
      if (!named.includes(e.type)) named.push(e.type, e.filter);
    }
    return named;
  }

  private byPkField(t: TableTypes): GraphQLFieldConfig<unknown, unknown> | null {
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const key of t.table.primaryKey) {
      const column = t.columns.find((c) => c.name === key);
      if (column === undefined) return null;
      const shape = this.types.shape(column.typeOid);
      if (shape.kind !== "scalar" || !BY_PK_SCALARS.has(shape.scalar)) return null;
      args[t.inflector.column(column)] = { type: new GraphQLNonNull(this.shared.scalars[shape.scalar]) };
    }
    return {
      type: t.node,
      description: `Retrieve a record of type \`${t.base}\` by its primary key`,
      args,
      extensions: resolved({ kind: "byPk", table: t.table }),
    };
  }

  private addMutations(t: TableTypes, fields: GraphQLFieldConfigMap<unknown, unknown>): void {
    const filterArg = {
      type: t.filter,
      description: "Restricts the mutation's impact to records matching the criteria",
    };
    const atMostArg = {
      type: new GraphQLNonNull(GraphQLInt),
      defaultValue: 1,
      description: "The maximum number of records in the collection permitted to be affected",
    };
    const collection = `${t.base}Collection`;
    if (t.insertInput !== null && t.insertResponse !== null) {
      fields[`insertInto${collection}`] = {
        type: t.insertResponse,
        description: `Adds one or more \`${t.base}\` records to the collection`,
        args: { objects: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.insertInput))) } },
        extensions: resolved({ kind: "insert", table: t.table }),
      };
    }
    if (t.updateInput !== null && t.updateResponse !== null) {
      fields[`update${collection}`] = {
        type: new GraphQLNonNull(t.updateResponse),
        description: `Updates zero or more records in the \`${t.base}\` collection`,
        args: {
          set: {
            type: new GraphQLNonNull(t.updateInput),
            description: "Fields that are set will be updated for all records matching the `filter`",
          },
          filter: filterArg,
          atMost: atMostArg,
        },
        extensions: resolved({ kind: "update", table: t.table }),
      };
    }
    if (t.deleteResponse !== null) {
      fields[`deleteFrom${collection}`] = {
        type: new GraphQLNonNull(t.deleteResponse),
        description: `Deletes zero or more records from the \`${t.base}\` collection`,
        args: { filter: filterArg, atMost: atMostArg },
        extensions: resolved({ kind: "delete", table: t.table }),
      };
    }
  }

  /** Computed fields, then relationships, after the node's own columns. */
  private nodeExtraFields(t: TableTypes): GraphQLFieldConfigMap<unknown, unknown> {
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    this.rowFunctions ??= functionsByRowArgument(this.catalog.functions, this.types);
    const candidates = this.rowFunctions.get(t.table.oid) ?? [];
    const computed = computedFunctions(t.table, candidates, this.types, this.exposedTables(), this.rowTypes().tables);
    for (const f of computed) {
      const name = t.inflector.computedField(f.fn);
      if (!isValidName(name) || fields[name] !== undefined) continue;
      const field = this.functionField(f, t.inflector);
      if (field === null) continue;
      const resolution = resolved({ kind: "computed", table: t.table, fn: f.fn, returns: f.returns });
      fields[name] = { ...field, extensions: resolution };
    }
    // Relationship names are the related table's schema's to give (its inflection setting), and
    // two relationships may get one name (two keys to one table without `Id` columns): the last
    // one answers to it, as in pg_graphql, where a type's fields go into a map by name in order.
    const relations = new Map<string, { relation: Relation; isLocalSide: boolean }>();
    for (const relation of this.relationsByTable.get(t.table.oid) ?? []) {
      const fk = relation.foreignKey;
      // A self-referencing key gives its table two relations: the local side starts from the
      // key's own columns.
      const isLocalSide = relation.from.oid === fk.localTableOid && relation.fromColumns === fk.localColumns;
      const named = this.tables.get(relation.to.oid)!.inflector;
      const name = isLocalSide
        ? named.toOneLocal(fk, relation.to)
        : named.toLocalFromForeign(fk, relation.to, relation.cardinality === "toOne");
      if (!isValidName(name) || fields[name] !== undefined) continue;
      relations.set(name, { relation, isLocalSide });
    }
    for (const [name, { relation, isLocalSide }] of relations) fields[name] = this.relationField(relation, isLocalSide);
    return fields;
  }

  private relationField(relation: Relation, isLocalSide: boolean): GraphQLFieldConfig<unknown, unknown> {
    const target = this.tables.get(relation.to.oid)!;
    if (isLocalSide) {
      const notNull = (name: string) => relation.from.columns.find((c) => c.name === name)?.notNull === true;
      const nonNull = !relation.to.rlsEnabled && relation.foreignKey.localColumns.every(notNull);
      return {
        type: nonNull ? new GraphQLNonNull(target.node) : target.node,
        extensions: resolved({ kind: "relation", relation }),
      };
    }
    if (relation.cardinality === "toOne") {
      return { type: target.node, extensions: resolved({ kind: "relation", relation }) };
    }
    return {
      type: target.connection,
      args: connectionArgs(target, this.shared),
      extensions: resolved({ kind: "connection", table: relation.to, relation }),
    };
  }

  /** A function as a field: its arguments and return type (without the resolution tag). */
  private functionField(f: ExposedFunction, inflector: Inflector): GraphQLFieldConfig<unknown, unknown> | null {
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const a of f.args) {
      const type = this.leaf(a.shape);
      if (type === null) return null;
      const name = inflector.argument(a.arg.name);
      if (!isValidName(name)) return null;
      args[name] = {
        type: a.arg.hasDefault ? type : new GraphQLNonNull(type),
        extensions: printedDefault(a.defaultValue),
      };
    }
    const description = f.fn.directives.description ?? null;
    switch (f.returns.kind) {
      case "scalar": {
        const type = f.returnShape === null ? null : this.leaf(f.returnShape);
        if (type === null) return null;
        return { type, args, description };
      }
      case "node": {
        const type = this.tables.get(f.returns.table.oid)?.node ?? this.rowTypes().typeOf(f.returns.table);
        return type === null ? null : { type, args, description };
      }
      case "connection": {
        const target = this.tables.get(f.returns.table.oid)!;
        return { type: target.connection, args: { ...args, ...connectionArgs(target, this.shared) }, description };
      }
      default:
        return unreachable(f.returns, "return");
    }
  }
}

function sortFields<T>(fields: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(fields).sort()) out[key] = fields[key]!;
  return out;
}

/** Two tables inflected to the same name would break the schema: the first one wins. */
function dedupeByName(types: GraphQLNamedType[]): GraphQLNamedType[] {
  const seen = new Set<string>();
  return types.filter((t) => (seen.has(t.name) ? false : (seen.add(t.name), true)));
}

/** The catalog restricted to schemas that opted in to introspection. */
function introspectable(catalog: Catalog): Catalog {
  const open = new Set(catalog.schemas.filter((s) => s.directives.introspection).map((s) => s.name));
  return {
    ...catalog,
    tables: catalog.tables.filter((t) => open.has(t.schema)),
    functions: catalog.functions.filter((f) => open.has(f.schema)),
    types: catalog.types.map((t) => (t.kind === "enum" && !open.has(t.schema) ? { ...t, exposed: false } : t)),
  };
}

/**
 * The API of a catalog narrowed to some relations (the reflection narrowed to the tables a request
 * names): what it answers, it answers as the whole API would; the root `node` field and
 * introspection, which may reach any relation, are absent (unknown fields here).
 */
export function buildPartialSchema(catalog: Catalog): ApiSchema {
  if (catalog.loadError !== null) return buildSchema(catalog);
  return new Builder(catalog, true).build();
}

export function buildSchema(catalog: Catalog): ApiSchema {
  if (catalog.loadError !== null) {
    const empty = new Builder({ ...catalog, tables: [], functions: [] }).build();
    return { ...empty, loadError: catalog.loadError };
  }
  const api = new Builder(catalog).build();
  const enabled = catalog.schemas.filter((s) => s.directives.introspection);
  if (enabled.length === 0) return api;
  if (enabled.length === catalog.schemas.length) return { ...api, introspection: api.graphql };
  return { ...api, introspection: new Builder(introspectable(catalog)).build().graphql };
}

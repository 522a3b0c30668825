// Schema stage, naming: every GraphQL name derived from a database name is made here.
// Input: catalog entities + the schema's inflect_names setting; output: type and field names.

import type { Column, ForeignKey, PgFunction, PgType, Table } from "../catalog/model";

/** What a table's names are made from (a directory entry of a large catalog has no more). */
type NamedTable = Pick<Table, "name" | "directives">;
type NamedEnum = Pick<Extract<PgType, { kind: "enum" }>, "name" | "directives">;

/** `account_holder` → `AccountHolder`; characters other than `_` are kept as they are. */
export function pascalCase(name: string): string {
  let out = "";
  let upperNext = true;
  for (const ch of name) {
    if (ch === "_") {
      upperNext = true;
    } else if (upperNext) {
      out += ch.toUpperCase();
      upperNext = false;
    } else {
      out += ch;
    }
  }
  return out;
}

/** `account_holder` → `accountHolder`. */
export function camelCase(name: string): string {
  const p = pascalCase(name);
  return p.charAt(0).toLowerCase() + p.slice(1);
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Enum values only need the GraphQL name syntax. */
export function isGraphQLName(name: string): boolean {
  return GRAPHQL_NAME.test(name);
}

/** Names the API cannot carry are left out of it rather than mangled. */
export function isValidName(name: string): boolean {
  return GRAPHQL_NAME.test(name) && !name.startsWith("__");
}

/** Names for one database schema; `inflect` is that schema's `inflect_names` directive. */
export class Inflector {
  /**
   * A table's field names, made once per table: they are asked for each relationship a table is
   * on, and a string made again is hashed again wherever it is looked up.
   */
  private readonly fields = new Map<NamedTable, { readonly base: string; readonly collection: string }>();

  constructor(private readonly inflect: boolean) {}

  /** Base name of a table's types: `Account`, or the table name untouched without inflection. */
  tableType(table: NamedTable): string {
    if (table.directives.name !== undefined) return table.directives.name;
    return this.inflect ? pascalCase(table.name) : table.name;
  }

  /**
   * Base of root and relationship field names: the type name with its first letter lowered,
   * with or without inflection (`AccountHolder` → `accountHolderCollection`).
   */
  tableField(table: NamedTable): string {
    return this.fieldsOf(table).base;
  }

  private fieldsOf(table: NamedTable): { readonly base: string; readonly collection: string } {
    let f = this.fields.get(table);
    if (f === undefined) {
      const typeName = this.tableType(table);
      const base = typeName.charAt(0).toLowerCase() + typeName.slice(1);
      this.fields.set(table, (f = { base, collection: `${base}Collection` }));
    }
    return f;
  }

  column(column: Column): string {
    if (column.directives.name !== undefined) return column.directives.name;
    return this.inflect ? camelCase(column.name) : column.name;
  }

  /** Function arguments are inflected like columns. */
  argument(name: string): string {
    return this.inflect ? camelCase(name) : name;
  }

  /** Root function fields. */
  function(fn: PgFunction): string {
    if (fn.directives.name !== undefined) return fn.directives.name;
    return this.inflect ? camelCase(fn.name) : fn.name;
  }

  /** Computed fields drop the conventional leading underscore: `_full_name` → `fullName`. */
  computedField(fn: PgFunction): string {
    if (fn.directives.name !== undefined) return fn.directives.name;
    const bare = fn.name.replace(/^_+/, "");
    return this.inflect ? camelCase(bare) : bare;
  }

  enumType(type: NamedEnum): string {
    if (type.directives.name !== undefined) return type.directives.name;
    return this.inflect ? pascalCase(type.name) : type.name;
  }

  /**
   * The to-one field on the referencing table, named by the referenced table's schema (this
   * inflector's): a single column ending in `Id` gives the rest (`authorId` → `author`), or with
   * inflection one ending in `_id` gives the rest inflected (`main_author_id` → `mainAuthor`);
   * any other key (several columns, `parent_id` without inflection) is named after the
   * referenced type (`account`), as pg_graphql names it.
   */
  toOneLocal(fk: Pick<ForeignKey, "foreignName" | "localColumns">, foreign: NamedTable): string {
    if (fk.foreignName !== undefined) return fk.foreignName;
    const suffix = this.inflect ? "_id" : "Id";
    const only = fk.localColumns.length === 1 ? fk.localColumns[0]! : null;
    if (only === null || !only.endsWith(suffix) || only.length === suffix.length) return this.tableField(foreign);
    const base = only.slice(0, -suffix.length);
    return this.inflect ? camelCase(base) : base;
  }

  /**
   * The field on the referenced table, named by the referencing table's schema (this
   * inflector's): `blogCollection`, or `blog` for a one-to-one key.
   */
  toLocalFromForeign(fk: Pick<ForeignKey, "localName">, local: NamedTable, oneToOne: boolean): string {
    if (fk.localName !== undefined) return fk.localName;
    const f = this.fieldsOf(local);
    return oneToOne ? f.base : f.collection;
  }
}

// Schema stage, relations without a primary key (views, mostly): no collection, but a function may
// return one of their rows, so each such relation gets an object type of its columns on demand.

import { GraphQLObjectType } from "graphql";
import type { Table } from "../catalog/model";
import { isValidName, type Inflector } from "./inflection";
import { sourced } from "./resolution";
import { columnFields, visibleColumns, type LeafTypes } from "./tableTypes";

export interface RowTypeNaming {
  inflector(schema: string): Inflector;
  /** Takes the type names for `owner`; false when another owner has them. */
  claim(names: readonly string[], owner: string): boolean;
}

export class RowTypes {
  /** Relations without a key (not exposed as collections), by oid. */
  readonly tables: ReadonlyMap<number, Table>;
  private readonly types = new Map<number, GraphQLObjectType | null>();

  constructor(
    all: readonly Table[],
    exposed: ReadonlyMap<number, unknown>,
    private readonly leaves: LeafTypes,
    private readonly naming: RowTypeNaming,
  ) {
    this.tables = new Map(
      all.filter((t) => t.kind !== "partitionedTable" && !exposed.has(t.oid) && t.primaryKey.length === 0).map((t) => [t.oid, t]),
    );
  }

  /** The relation's row type (columns only: no node id); null when its name is taken or unusable. */
  typeOf(table: Table): GraphQLObjectType | null {
    if (!this.types.has(table.oid)) {
      const inflector = this.naming.inflector(table.schema);
      const name = inflector.tableType(table);
      const usable = isValidName(name) && this.naming.claim([name], `table:${table.oid}`);
      this.types.set(table.oid, usable ? buildRowType(table, inflector, this.leaves) : null);
    }
    return this.types.get(table.oid)!;
  }
}

/**
 * The object type of a relation without a key (no node id, no collection): what a function
 * returning one of its rows answers. Null when no column is visible.
 */
function buildRowType(table: Table, inflector: Inflector, types: LeafTypes): GraphQLObjectType | null {
  const columns = visibleColumns(table, inflector, types);
  if (columns.length === 0) return null;
  return new GraphQLObjectType({
    name: inflector.tableType(table),
    description: table.directives.description ?? null,
    fields: () => columnFields(table, columns, inflector, types),
    extensions: sourced({ kind: "node", table }),
  });
}

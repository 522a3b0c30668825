// Transpile stage, row references: how the expressions built for a plan reach the columns of the
// row being rendered (a table alias, or a row carried out of a subquery), and the alias counter.

import type { Table } from "../catalog/model";
import { pgType, type Expr, type FromItem } from "../sql/ast";

/** How expressions reach the columns of the row being rendered. */
export interface RowRef {
  column(name: string): Expr;
  whole: Expr;
  /**
   * A value computed from the row where its columns are at hand (a related row's column an order
   * names): carried rows compute it in the subquery they come from; without this, in place.
   */
  derive?(key: string, build: (row: RowRef) => Expr): Expr;
}

export const textType = pgType("text");

/** Aliases are numbered in visiting order, so the same plan always gives the same SQL. */
export class AliasCounter {
  private n = 0;
  next(prefix: string): string {
    return prefix + this.n++;
  }
}

export function tableRow(alias: string): RowRef {
  return {
    column: (name) => ({ kind: "column", table: alias, name }),
    whole: { kind: "row", table: alias },
  };
}

/**
 * A row carried out of the page subquery: only the columns the outer expressions use (column
 * privileges may forbid the others), plus the whole row when a computed field needs it.
 */
export interface CarriedRow extends RowRef {
  used: Set<string>;
  wholeUsed: boolean;
  /** Derived values the subquery computes, by the column carrying each. */
  derived: Map<string, (row: RowRef) => Expr>;
}

export function carriedRow(alias: string): CarriedRow {
  const carriers = new Map<string, string>();
  const row: CarriedRow = {
    used: new Set(),
    wholeUsed: false,
    derived: new Map(),
    derive(key, build) {
      let name = carriers.get(key);
      if (name === undefined) {
        name = "d_" + carriers.size;
        carriers.set(key, name);
        row.derived.set(name, build);
      }
      return { kind: "column", table: alias, name };
    },
    column(name) {
      row.used.add(name);
      return { kind: "column", table: alias, name: "c_" + name };
    },
    get whole(): Expr {
      row.wholeUsed = true;
      return { kind: "column", table: alias, name: "__r" };
    },
  };
  return row;
}

export function tableFrom(table: Table, alias: string): FromItem {
  return { kind: "table", schema: table.schema, name: table.name, alias };
}

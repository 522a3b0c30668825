// Schema stage, relationships: the exposed tables' types → each foreign key (constraint or
// directive) whose both ends are exposed, seen from each end, listed by the table it starts from.

import type { Table } from "../catalog/model";
import type { Relation } from "./resolution";
import type { TableTypes } from "./tableTypes";

/** A key over exactly the columns of a full (non-partial) unique index makes a one-to-one. */
function isOneToOne(table: Table, columns: readonly string[]): boolean {
  const wanted = new Set(columns);
  return table.uniqueIndexes.some(
    (i) => !i.isPartial && i.columns.length === wanted.size && i.columns.every((c) => wanted.has(c)),
  );
}

function columnsVisible(t: TableTypes, names: readonly string[]): boolean {
  return names.every((n) => t.columns.some((c) => c.name === n));
}

/** Relations by the oid of their `from` table: every table's own keys first, then the reverse ends. */
export function collectRelations(tables: ReadonlyMap<number, TableTypes>): Map<number, Relation[]> {
  const byTable = new Map<number, Relation[]>();
  const add = (r: Relation) => {
    const list = byTable.get(r.from.oid) ?? [];
    list.push(r);
    byTable.set(r.from.oid, list);
  };
  const reverse: Relation[] = [];
  for (const local of tables.values()) {
    for (const fk of local.table.foreignKeys) {
      const foreign = tables.get(fk.foreignTableOid);
      if (foreign === undefined) continue;
      if (!columnsVisible(local, fk.localColumns) || !columnsVisible(foreign, fk.foreignColumns)) continue;
      add({
        foreignKey: fk,
        from: local.table,
        to: foreign.table,
        fromColumns: fk.localColumns,
        toColumns: fk.foreignColumns,
        cardinality: "toOne",
      });
      reverse.push({
        foreignKey: fk,
        from: foreign.table,
        to: local.table,
        fromColumns: fk.foreignColumns,
        toColumns: fk.localColumns,
        cardinality: isOneToOne(local.table, fk.localColumns) ? "toOne" : "toMany",
      });
    }
  }
  for (const r of reverse) add(r);
  return byTable;
}

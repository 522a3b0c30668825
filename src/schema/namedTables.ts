// Schema stage, narrowing: a large catalog's directory + the names a request's document uses →
// the relations whose API types the request may touch, so that only those are reflected and built.

import type { CatalogDirectory, DirectoryTable } from "../catalog/directory";
import { TABLE_TYPE_SUFFIXES } from "./buildSchema";
import { Inflector } from "./inflection";

/**
 * Every relation one of whose root fields, type names or relationship fields is among `names`,
 * plus every relation that could take one of those names first (a name held twice is decided by
 * which relation claims it first, so both must be present for the answer to be the one the whole
 * catalog gives). Names a request uses that none of these relations provides make the request fail
 * against the narrowed API: the caller then builds the whole one. Null when no part of the catalog
 * is sure to answer as the whole does.
 */
export function tablesNamedBy(directory: CatalogDirectory, names: ReadonlySet<string>): number[] | null {
  const inflector = (schema: string) => new Inflector(directory.schemas.get(schema)?.inflectNames ?? false);
  const byOid = new Map(directory.tables.map((t) => [t.oid, t]));
  const chosen = new Set<number>();
  const holders = new Map<string, number[]>();
  for (const t of directory.tables) {
    const typeNames = tableTypeNames(t, inflector(t.schema));
    for (const n of typeNames) {
      const list = holders.get(n);
      if (list) list.push(t.oid);
      else holders.set(n, [t.oid]);
    }
    if (typeNames.some((n) => names.has(n)) || rootFieldNames(t, inflector(t.schema)).some((n) => names.has(n))) chosen.add(t.oid);
  }
  for (const key of directory.keys) {
    const local = byOid.get(key.localOid);
    const foreign = byOid.get(key.foreignOid);
    if (local === undefined || foreign === undefined) continue;
    const onForeign = inflector(foreign.schema);
    const relationNames = [
      inflector(local.schema).toOneLocal(key, foreign),
      onForeign.toLocalFromForeign(key, local, true),
      onForeign.toLocalFromForeign(key, local, false),
    ];
    if (relationNames.some((n) => names.has(n))) chosen.add(local.oid).add(foreign.oid);
  }
  // An enum and a table after the first table with a column of that enum want the same name:
  // which one gets it depends on the order the whole catalog is built in.
  for (const e of directory.enums) {
    const name = inflector(e.schema).enumType(e);
    if (holders.has(name) || holders.has(`${name}Filter`)) return null;
  }
  const pending = [...chosen];
  for (let oid = pending.pop(); oid !== undefined; oid = pending.pop()) {
    const t = byOid.get(oid)!;
    for (const n of tableTypeNames(t, inflector(t.schema))) {
      for (const other of holders.get(n) ?? []) {
        if (chosen.has(other)) continue;
        chosen.add(other);
        pending.push(other);
      }
    }
  }
  return [...chosen].sort((a, b) => a - b);
}

function tableTypeNames(t: DirectoryTable, inflector: Inflector): string[] {
  const base = inflector.tableType(t);
  return TABLE_TYPE_SUFFIXES.map((suffix) => base + suffix);
}

function rootFieldNames(t: DirectoryTable, inflector: Inflector): string[] {
  const base = inflector.tableType(t);
  const field = inflector.tableField(t);
  return [`${field}Collection`, `${field}ByPk`, `insertInto${base}Collection`, `update${base}Collection`, `deleteFrom${base}Collection`];
}

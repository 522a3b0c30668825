// Schema stage, narrowing: a large catalog's directory + the names a request's document uses →
// the relations whose API types the request may touch, so that only those are reflected and built.

import type { CatalogDirectory, DirectoryTable } from "../catalog/directory";
import { FEATURE_TYPE_SUFFIXES } from "./featureTypes";
import { anyFeatureOn } from "./features";
import { TABLE_TYPE_SUFFIXES } from "./tableTypes";
import { Inflector } from "./inflection";

/**
 * Every relation one of whose root fields, type names or relationship fields is among `names`,
 * plus every relation that could take one of those names (a name held twice is decided by the
 * order of the relations claiming it, so all must be present for the answer to be the one the whole
 * catalog gives). Names a request uses that none of these relations provides make the request fail
 * against the narrowed API: the caller then builds the whole one. Null when no part of the catalog
 * is sure to answer as the whole does.
 */
export function tablesNamedBy(directory: CatalogDirectory, names: ReadonlySet<string>): number[] | null {
  const inflectors = new Map<string, Inflector>();
  const inflector = (schema: string) => {
    let i = inflectors.get(schema);
    if (i === undefined) inflectors.set(schema, (i = new Inflector(directory.schemas.get(schema)?.inflectNames ?? false)));
    return i;
  };
  // A table's names are made once, with its schema's inflector (a key is named by both its ends).
  const byOid = new Map<number, { readonly table: DirectoryTable; readonly inflector: Inflector; readonly base: string }>();
  const byBase = new Map<string, DirectoryTable[]>();
  const byField = new Map<string, DirectoryTable[]>();
  const add = (map: Map<string, DirectoryTable[]>, key: string, t: DirectoryTable) => {
    const list = map.get(key);
    if (list) list.push(t);
    else map.set(key, [t]);
  };
  for (const t of directory.tables) {
    const i = inflector(t.schema);
    const base = i.tableType(t);
    byOid.set(t.oid, { table: t, inflector: i, base });
    add(byBase, base, t);
    add(byField, i.tableField(t), t);
  }
  // With an opt-in feature on somewhere, a table's names include the features' types.
  const features = anyFeatureOn([...[...directory.schemas.values()].map((s) => s.features), ...directory.tables.map((t) => t.directives.features)]);
  const suffixes = features ? [...TABLE_TYPE_SUFFIXES, ...FEATURE_TYPE_SUFFIXES] : TABLE_TYPE_SUFFIXES;
  // The tables one of whose type names (base name + suffix) is `name`: looked up by base name
  // rather than listing every table's fifteen names.
  const holders = (name: string): DirectoryTable[] =>
    suffixes.flatMap((suffix) => (name.endsWith(suffix) ? byBase.get(name.slice(0, name.length - suffix.length)) ?? [] : []));
  // An enum and a table after the first table with a column of that enum want the same name:
  // which one gets it depends on the order the whole catalog is built in.
  for (const e of directory.enums) {
    const name = inflector(e.schema).enumType(e);
    if (holders(name).length > 0 || holders(`${name}Filter`).length > 0) return null;
  }
  const chosen = new Set<number>();
  for (const name of names) {
    for (const t of [...holders(name), ...rootFieldTables(name, byBase, byField)]) chosen.add(t.oid);
  }
  for (const key of directory.keys) {
    const local = byOid.get(key.localOid);
    const foreign = byOid.get(key.foreignOid);
    if (local === undefined || foreign === undefined) continue;
    // Each end is named by the other end's schema.
    if (
      names.has(foreign.inflector.toOneLocal(key, foreign.table)) ||
      names.has(local.inflector.toLocalFromForeign(key, local.table, true)) ||
      names.has(local.inflector.toLocalFromForeign(key, local.table, false))
    ) {
      chosen.add(local.table.oid).add(foreign.table.oid);
    }
  }
  const pending = [...chosen];
  for (let oid = pending.pop(); oid !== undefined; oid = pending.pop()) {
    const base = byOid.get(oid)!.base;
    for (const suffix of suffixes) {
      for (const other of holders(base + suffix)) {
        if (chosen.has(other.oid)) continue;
        chosen.add(other.oid);
        pending.push(other.oid);
      }
    }
  }
  return [...chosen].sort((a, b) => a - b);
}

/** Tables whose root field (collection, by key, insert, update, delete) is `name`. */
function rootFieldTables(name: string, byBase: Map<string, DirectoryTable[]>, byField: Map<string, DirectoryTable[]>): DirectoryTable[] {
  const found: DirectoryTable[] = [];
  for (const suffix of ["Collection", "ByPk"]) {
    if (name.endsWith(suffix)) found.push(...(byField.get(name.slice(0, -suffix.length)) ?? []));
  }
  if (!name.endsWith("Collection")) return found;
  for (const prefix of ["insertInto", "update", "deleteFrom"]) {
    if (name.startsWith(prefix)) found.push(...(byBase.get(name.slice(prefix.length, -"Collection".length)) ?? []));
  }
  return found;
}

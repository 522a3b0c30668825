// Catalog stage, directory: what names every relation of a large catalog could give the API
// (relations, their keys, enums), read without columns, privileges or types. Input: the
// directory query's json document; output: a CatalogDirectory, or null when a comment directive
// cannot be read (the full reflection then reports it).

import { DirectiveError, enumDirectives, foreignKeyNameDirectives, schemaDirectives, tableDirectives } from "./directives";
import type { EnumDirectives, SchemaDirectives, TableDirectives } from "./model";
import { EXPOSED_SCHEMAS_CTE, RELATION_KINDS } from "./reflectionQuery";

/** An object's comment (its own, not a column's), as the reflection query reads it. */
const comment = (oid: string, catalog: string) =>
  `(select d.description from pg_catalog.pg_description d where d.objoid = ${oid} and d.classoid = 'pg_catalog.${catalog}'::regclass and d.objsubid = 0)`;

/** One row, one json column `directory`, in the reflection query's schemas and relations. */
export const DIRECTORY_QUERY = `
with ${EXPOSED_SCHEMAS_CTE},
rels as (
  select c.oid, c.relname, s.nspname
  from pg_catalog.pg_class c
  join exposed_schemas s on s.oid = c.relnamespace
  where ${RELATION_KINDS}
)
select json_build_object(
  'schemas', coalesce((
    select json_agg(json_build_array(s.nspname::text, ${comment("s.oid", "pg_namespace")}))
    from exposed_schemas s
  ), '[]'::json),
  'tables', coalesce((
    select json_agg(json_build_array(r.oid::bigint, r.nspname::text, r.relname::text, ${comment("r.oid", "pg_class")}))
    from rels r
  ), '[]'::json),
  'foreignKeys', coalesce((
    select json_agg(json_build_array(
      con.conrelid::bigint,
      con.confrelid::bigint,
      -- Most keys have one column: one index lookup instead of a join planned per key.
      case when pg_catalog.cardinality(con.conkey) = 1 then json_build_array((
        select a.attname::text from pg_catalog.pg_attribute a where a.attrelid = con.conrelid and a.attnum = con.conkey[1]
      )) else (
        select json_agg(a.attname::text order by k.ord)
        from unnest(con.conkey) with ordinality as k(attnum, ord)
        join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
      ) end,
      ${comment("con.oid", "pg_constraint")}
    ))
    from pg_catalog.pg_constraint con
    join rels r on r.oid = con.conrelid
    where con.contype = 'f'
  ), '[]'::json),
  'enums', coalesce((
    select json_agg(json_build_array(s.nspname::text, t.typname::text, ${comment("t.oid", "pg_type")}))
    from pg_catalog.pg_type t
    join exposed_schemas s on s.oid = t.typnamespace
    where t.typtype = 'e'
  ), '[]'::json)
) as directory
`;

export interface DirectoryTable {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  readonly directives: TableDirectives;
}

/** A key between two relations, declared or from a `foreign_keys` directive. */
export interface DirectoryKey {
  readonly localOid: number;
  readonly foreignOid: number;
  readonly localColumns: readonly string[];
  readonly localName?: string;
  readonly foreignName?: string;
}

export interface CatalogDirectory {
  readonly schemas: ReadonlyMap<string, SchemaDirectives>;
  readonly tables: readonly DirectoryTable[];
  readonly keys: readonly DirectoryKey[];
  readonly enums: readonly { readonly schema: string; readonly name: string; readonly directives: EnumDirectives }[];
}

interface RawDirectory {
  schemas: [string, string | null][];
  tables: [number, string, string, string | null][];
  foreignKeys: [number, number, string[], string | null][];
  enums: [string, string, string | null][];
}

export function parseDirectory(json: unknown): CatalogDirectory | null {
  const raw = (typeof json === "string" ? JSON.parse(json) : json) as RawDirectory;
  try {
    const tables = raw.tables.map(([oid, schema, name, comment]) => ({ oid: Number(oid), schema, name, directives: tableDirectives(comment) }));
    const byName = new Map(tables.map((t) => [`${t.schema}.${t.name}`, t]));
    const keys: DirectoryKey[] = raw.foreignKeys.map(([local, foreign, localColumns, comment]) => ({
      localOid: Number(local),
      foreignOid: Number(foreign),
      localColumns,
      ...foreignKeyNameDirectives(comment),
    }));
    for (const t of tables) {
      for (const d of t.directives.foreignKeys ?? []) {
        const target = byName.get(`${d.foreignSchema}.${d.foreignTable}`);
        if (target === undefined) continue;
        const names = { ...(d.localName !== undefined ? { localName: d.localName } : {}), ...(d.foreignName !== undefined ? { foreignName: d.foreignName } : {}) };
        keys.push({ localOid: t.oid, foreignOid: target.oid, localColumns: d.localColumns, ...names });
      }
    }
    return {
      schemas: new Map(raw.schemas.map(([name, comment]) => [name, schemaDirectives(comment)])),
      tables,
      keys,
      enums: raw.enums.map(([schema, name, comment]) => ({ schema, name, directives: enumDirectives(comment) })),
    };
  } catch (e) {
    if (e instanceof DirectiveError) return null;
    throw e;
  }
}

// Catalog stage, reflection: the query that reads everything the API is built from (or, for a
// large catalog, everything about the relations a request names).
// Input: the current role and search path (implicit); output: one json document for parseCatalog().

/** The schemas of the search path the API is built from (a CTE shared with the directory query). */
export const EXPOSED_SCHEMAS_CTE = `exposed_schemas as (
  select n.oid, n.nspname, sp.ord
  from unnest(current_schemas(false)) with ordinality as sp(name, ord)
  join pg_catalog.pg_namespace n on n.nspname = sp.name
  where n.nspname not in ('pg_catalog', 'information_schema', 'graphql', 'graphql_public')
    and pg_catalog.has_schema_privilege(n.oid, 'USAGE')
)`;

/** The relations the API may expose (a filter on pg_class shared with the directory query). */
export const RELATION_KINDS = "c.relkind in ('r', 'v', 'm', 'f', 'p')";

/**
 * Returns one row with one column, `catalog` (json: built as text, it costs far less than jsonb,
 * whose objects are sorted and re-encoded at every level). Comments are returned raw: directives are
 * read in parseCatalog() so that a malformed one becomes a load error instead of a failed query.
 * Privileges are evaluated here for the current role; the schema stage decides what they hide.
 */
const reflectionQuery = (relationFilter: string) => `
with ${EXPOSED_SCHEMAS_CTE},
-- A relation's comment is looked up here, once per relation: in the final select the planner
-- would multiply the lookup by its (much inflated) guess of the rows joined from the CTEs.
rels as (
  select c.oid, c.relname, c.relkind, c.relispartition, c.relrowsecurity, s.nspname, s.ord,
         (
           select rd.description from pg_catalog.pg_description rd
           where rd.objoid = c.oid and rd.classoid = 'pg_catalog.pg_class'::regclass and rd.objsubid = 0
         ) as comment
  from pg_catalog.pg_class c
  join exposed_schemas s on s.oid = c.relnamespace
  where ${RELATION_KINDS}${relationFilter}
),
cols as (
  select a.attrelid, json_agg(json_build_object(
    'attnum', a.attnum,
    'name', a.attname::text,
    'typeOid', a.atttypid::bigint,
    -- char(n), varchar(n) and their arrays (an array column's typmod is its element's).
    'maxLength', case when a.atttypid in (1042, 1043, 1014, 1015) and a.atttypmod > 4 then a.atttypmod - 4 end,
    'notNull', a.attnotnull,
    'hasDefault', a.atthasdef,
    'isGenerated', a.attgenerated <> '',
    -- A default never refers to columns, so it is printed without its table (relid 0), which
    -- spares opening every table; generation expressions (which may) never call nextval.
    'isSerial', a.attidentity <> ''
      or coalesce(case when a.attgenerated = '' then pg_catalog.pg_get_expr(d.adbin, 0) end like 'nextval(%', false),
    'comment', ds.description,
    'select', pg_catalog.has_column_privilege(a.attrelid, a.attnum, 'SELECT'),
    'insert', pg_catalog.has_column_privilege(a.attrelid, a.attnum, 'INSERT'),
    'update', pg_catalog.has_column_privilege(a.attrelid, a.attnum, 'UPDATE')
  ) order by a.attnum) as columns,
  pg_catalog.array_agg(a.atttypid) as type_oids
  from pg_catalog.pg_attribute a
  join rels r on r.oid = a.attrelid
  left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
  left join pg_catalog.pg_description ds
    on ds.objoid = a.attrelid and ds.classoid = 'pg_catalog.pg_class'::regclass and ds.objsubid = a.attnum
  where a.attnum > 0 and not a.attisdropped
  group by a.attrelid
),
idx as (
  select i.indrelid, json_agg(json_build_object(
    'isPrimary', i.indisprimary,
    'isPartial', i.indpred is not null,
    'columns', (
      select json_agg(a.attname::text order by k.ord)
      from unnest(i.indkey::int2[]) with ordinality as k(attnum, ord)
      left join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
    ),
    'hasExpression', 0 = any(i.indkey::int2[]),
    -- The primary key or unique constraint the index enforces (an upsert names it).
    'constraint', (
      select json_build_object('name', con.conname::text, 'deferrable', con.condeferrable)
      from pg_catalog.pg_constraint con
      where con.conindid = i.indexrelid and con.conrelid = i.indrelid and con.contype in ('p', 'u')
    )
  ) order by i.indexrelid) as indexes
  from pg_catalog.pg_index i
  join rels r on r.oid = i.indrelid
  where i.indisunique and i.indisvalid
  group by i.indrelid
),
fks as (
  select con.conrelid, json_agg(json_build_object(
    'name', con.conname::text,
    'foreignTableOid', con.confrelid::bigint,
    'localColumns', (
      select json_agg(a.attname::text order by k.ord)
      from unnest(con.conkey) with ordinality as k(attnum, ord)
      join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
    ),
    'foreignColumns', (
      select json_agg(a.attname::text order by k.ord)
      from unnest(con.confkey) with ordinality as k(attnum, ord)
      join pg_catalog.pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum
    ),
    'comment', (
      select cd.description from pg_catalog.pg_description cd
      where cd.objoid = con.oid and cd.classoid = 'pg_catalog.pg_constraint'::regclass and cd.objsubid = 0
    )
  ) order by con.conname) as foreign_keys
  from pg_catalog.pg_constraint con
  join rels r on r.oid = con.conrelid
  where con.contype = 'f'
  group by con.conrelid
),
procs as (
  select p.oid, p.proname, p.pronamespace, p.proargtypes, p.proallargtypes, p.proargmodes, p.proargnames,
         p.pronargs, p.pronargdefaults, p.proargdefaults, p.prorettype, p.proretset, p.prorows,
         p.provolatile, p.provariadic, s.nspname, s.ord,
         count(*) over (partition by p.pronamespace, p.proname) as same_name
  from pg_catalog.pg_proc p
  join exposed_schemas s on s.oid = p.pronamespace
  where p.prokind = 'f'
),
-- Type oids travel as arrays (duplicates and all): the planner then expects a handful of pg_type
-- rows (index scans) instead of guessing thousands from the CTEs, which would cost the query past
-- jit_above_cost and size hash tables for them.
referenced_types as (
  select pg_catalog.array_agg(x.oid) as oids
  from (
    select unnest(c.type_oids) from cols c
    union all
    select unnest(p.proargtypes::oid[]) from procs p
    union all
    select p.prorettype from procs p
    union all
    select t.oid from pg_catalog.pg_type t join exposed_schemas s on s.oid = t.typnamespace
    where t.typtype = 'e'
  ) as x(oid)
),
type_closure as (
  select rt.oids || array(
    select t.typelem from pg_catalog.pg_type t
    where t.oid = any(rt.oids) and t.typelem <> 0 and t.typcategory = 'A'
  ) as oids
  from referenced_types rt
)
select json_build_object(
  'role', current_user::text,
  'schemas', coalesce((
    select json_agg(json_build_object(
      'oid', s.oid::bigint,
      'name', s.nspname::text,
      'comment', (
        select sd.description from pg_catalog.pg_description sd
        where sd.objoid = s.oid and sd.classoid = 'pg_catalog.pg_namespace'::regclass and sd.objsubid = 0
      )
    ) order by s.ord)
    from exposed_schemas s
  ), '[]'::json),
  'tables', coalesce((
    select json_agg(json_build_object(
      'oid', r.oid::bigint,
      'schema', r.nspname::text,
      'name', r.relname::text,
      'relkind', r.relkind::text,
      'isPartition', r.relispartition,
      'rlsEnabled', r.relrowsecurity,
      'comment', r.comment,
      'privileges', json_build_object(
        'select', pg_catalog.has_table_privilege(r.oid, 'SELECT'),
        'insert', pg_catalog.has_table_privilege(r.oid, 'INSERT'),
        'update', pg_catalog.has_table_privilege(r.oid, 'UPDATE'),
        'delete', pg_catalog.has_table_privilege(r.oid, 'DELETE')
      ),
      'columns', coalesce(cols.columns, '[]'::json),
      'indexes', coalesce(idx.indexes, '[]'::json),
      'foreignKeys', coalesce(fks.foreign_keys, '[]'::json)
    ) order by r.ord, r.relname)
    from rels r
    left join cols on cols.attrelid = r.oid
    left join idx on idx.indrelid = r.oid
    left join fks on fks.conrelid = r.oid
  ), '[]'::json),
  'types', coalesce((
    select json_agg(json_build_object(
      'oid', t.oid::bigint,
      'schema', tn.nspname::text,
      'name', t.typname::text,
      'typtype', t.typtype::text,
      'category', t.typcategory::text,
      'elementOid', t.typelem::bigint,
      'baseOid', t.typbasetype::bigint,
      'relationOid', t.typrelid::bigint,
      'usage', pg_catalog.has_type_privilege(t.oid, 'USAGE'),
      'onSearchPath', exists (select 1 from exposed_schemas s where s.oid = t.typnamespace),
      'comment', case when t.typtype = 'e' then (
        select td.description from pg_catalog.pg_description td
        where td.objoid = t.oid and td.classoid = 'pg_catalog.pg_type'::regclass and td.objsubid = 0
      ) end,
      'enumValues', case when t.typtype = 'e' then (
        select json_agg(e.enumlabel::text order by e.enumsortorder)
        from pg_catalog.pg_enum e where e.enumtypid = t.oid
      ) end
    ) order by t.oid)
    from pg_catalog.pg_type t
    join pg_catalog.pg_namespace tn on tn.oid = t.typnamespace
    where t.oid = any((select tc.oids from type_closure tc)::oid[])
  ), '[]'::json),
  'functions', coalesce((
    select json_agg(json_build_object(
      'oid', p.oid::bigint,
      'schema', p.nspname::text,
      'name', p.proname::text,
      'args', coalesce((
        select json_agg(json_build_object(
          'name', a.name,
          'mode', a.mode,
          'typeOid', a.typ::bigint
        ) order by a.ord)
        from unnest(
          coalesce(p.proallargtypes, p.proargtypes::oid[]),
          coalesce(p.proargmodes::text[], array_fill('i'::text, array[p.pronargs::int])),
          p.proargnames
        ) with ordinality as a(typ, mode, name, ord)
      ), '[]'::json),
      'nDefaults', p.pronargdefaults,
      'defaults', pg_catalog.pg_get_expr(p.proargdefaults, 0),
      'returnTypeOid', p.prorettype::bigint,
      'returnsSet', p.proretset,
      'rows', p.prorows,
      'volatility', p.provolatile::text,
      'isVariadic', p.provariadic <> 0,
      'isOverloaded', p.same_name > 1,
      'canExecute', pg_catalog.has_function_privilege(p.oid, 'EXECUTE'),
      'comment', (
        select pd.description from pg_catalog.pg_description pd
        where pd.objoid = p.oid and pd.classoid = 'pg_catalog.pg_proc'::regclass and pd.objsubid = 0
      )
    ) order by p.ord, p.proname, p.oid)
    from procs p
  ), '[]'::json)
) as catalog
`;

export const REFLECTION_QUERY = reflectionQuery("");

/**
 * The same document with only the relations whose oids `$1` lists (`{1,2}` as text): schemas,
 * types and functions stay complete. For large catalogs, where a request names a few tables.
 */
export const NARROWED_REFLECTION_QUERY = reflectionQuery("\n    and c.oid = any($1::text::oid[])");

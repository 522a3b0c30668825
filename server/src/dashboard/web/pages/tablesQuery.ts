// Tables page stage (pure): the catalog query the page runs on the read-only login: the relations
// of the project's own schemas (the platform's and extensions' objects left out), with the
// planner's row estimate (null before the first ANALYZE), row level security and size.

export interface TableRow {
  schema: string;
  name: string;
  kind: string;
  estimated_rows: number | string | null;
  rls_enabled: boolean;
  size: string;
  bytes: number | string;
  comment: string | null;
}

export const tablesSql = `select n.nspname as schema, c.relname as name, c.relkind::text as kind,
       case when c.reltuples < 0 then null else c.reltuples::bigint end as estimated_rows,
       c.relrowsecurity as rls_enabled,
       pg_catalog.pg_size_pretty(pg_catalog.pg_total_relation_size(c.oid)) as size,
       pg_catalog.pg_total_relation_size(c.oid) as bytes,
       pg_catalog.obj_description(c.oid, 'pg_class') as comment
  from pg_catalog.pg_class c
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
 where c.relkind in ('r', 'p', 'v', 'm', 'f')
   and n.nspname not in ('pg_catalog', 'information_schema', 'auth', 'graphql', 'extensions', 'supabase_migrations')
   and n.nspname !~ '^pg_(toast|temp)'
   and not exists (select 1 from pg_catalog.pg_depend d
                    where d.classid = 'pg_catalog.pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
 order by 1, 2`;

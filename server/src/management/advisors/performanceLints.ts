// Project stage (advisors): the performance lints, each one query over the catalog and the
// statistics of the project's own schemas.
import { ownRelation, relationLintQuery, relations, remediationUrl, type LintDefinition } from "./lint";

const performance = { categories: ["PERFORMANCE" as const], type: "sql" as const };

export const performanceLints: LintDefinition[] = [
  {
    ...performance,
    name: "unindexed_foreign_keys",
    title: "Unindexed foreign keys",
    level: "INFO",
    description: "Foreign keys whose columns lead no index: joins on them and deletes of the referenced rows scan the whole table.",
    remediation: remediationUrl("0001", "unindexed_foreign_keys"),
    query: `select format('Table \`%s.%s\` has a foreign key \`%s\` on (%s) without an index leading with its columns.',
        n.nspname, c.relname, con.conname, (select string_agg(a.attname, ', ' order by k.i) from unnest(con.conkey) with ordinality k(num, i)
          join pg_attribute a on a.attrelid = c.oid and a.attnum = k.num)) as detail,
      jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table', 'fkey_name', con.conname, 'fkey_columns', to_jsonb(con.conkey)) as metadata,
      format('unindexed_foreign_keys_%s_%s_%s', n.nspname, c.relname, con.conname) as cache_key
    from pg_constraint con join ${relations} on c.oid = con.conrelid
    where ${ownRelation} and con.contype = 'f'
      and not exists (select 1 from pg_index i where i.indrelid = c.oid
        and (select array_agg(x order by x) from unnest((i.indkey::int2[])[0:cardinality(con.conkey) - 1]) x)
          = (select array_agg(x order by x) from unnest(con.conkey) x))
    order by 3`,
  },
  {
    ...performance,
    name: "no_primary_key",
    title: "No primary key",
    level: "INFO",
    description: "Tables without a primary key: rows cannot be addressed one by one (updates through the API, replication) and scale poorly.",
    remediation: remediationUrl("0004", "no_primary_key"),
    query: relationLintQuery(
      "no_primary_key",
      "format('Table `%s.%s` has no primary key.', n.nspname, c.relname)",
      "'r', 'p'",
      "not c.relispartition and not exists (select 1 from pg_constraint p where p.conrelid = c.oid and p.contype = 'p')",
    ),
  },
  {
    ...performance,
    name: "unused_index",
    title: "Unused index",
    level: "INFO",
    description: "Indexes no scan has used since the statistics were reset: they cost every write and take space.",
    remediation: remediationUrl("0005", "unused_index"),
    query: `select format('Index \`%s\` of table \`%s.%s\` has not been used.', s.indexrelname, n.nspname, c.relname) as detail,
      jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table', 'entity', s.indexrelname) as metadata,
      format('unused_index_%s_%s_%s', n.nspname, c.relname, s.indexrelname) as cache_key
    from pg_stat_user_indexes s join pg_index i on i.indexrelid = s.indexrelid join ${relations} on c.oid = s.relid
    where ${ownRelation} and s.idx_scan = 0 and not i.indisunique and not i.indisprimary
    order by 3`,
  },
  {
    ...performance,
    name: "multiple_permissive_policies",
    title: "Multiple permissive policies",
    level: "WARN",
    description: "Several permissive policies for the same role and action on one table: every one of them is evaluated for every row.",
    remediation: remediationUrl("0006", "multiple_permissive_policies"),
    query: `with expanded as (
        select n.nspname, c.relname, p.polname,
          case when r.role = 0 then 'public' else pg_get_userbyid(r.role) end as role, a.action
        from pg_policy p join ${relations} on c.oid = p.polrelid
        cross join lateral unnest(p.polroles) r(role)
        cross join lateral unnest(case p.polcmd when '*' then array['SELECT', 'INSERT', 'UPDATE', 'DELETE']
          when 'r' then array['SELECT'] when 'a' then array['INSERT'] when 'w' then array['UPDATE'] else array['DELETE'] end) a(action)
        where ${ownRelation} and p.polpermissive)
      select format('Table \`%s.%s\` has multiple permissive policies for role \`%s\` for action \`%s\`: {%s}.',
          nspname, relname, role, action, string_agg(polname, ',' order by polname)) as detail,
        jsonb_build_object('schema', nspname, 'name', relname, 'type', 'table') as metadata,
        format('multiple_permissive_policies_%s_%s_%s_%s', nspname, relname, role, action) as cache_key
      from expanded group by nspname, relname, role, action having count(*) > 1
      order by 3`,
  },
  {
    ...performance,
    name: "duplicate_index",
    title: "Duplicate index",
    level: "WARN",
    description: "Identical indexes on one table: only one is needed, each copy costs every write.",
    remediation: remediationUrl("0009", "duplicate_index"),
    query: `select format('Table \`%s.%s\` has identical indexes {%s}. Drop all but one of them.', n.nspname, c.relname,
          string_agg(x.relname, ', ' order by x.relname)) as detail,
        jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table', 'entity', string_agg(x.relname, ',' order by x.relname)) as metadata,
        format('duplicate_index_%s_%s_%s', n.nspname, c.relname, string_agg(x.relname, '_' order by x.relname)) as cache_key
      from pg_index i join pg_class x on x.oid = i.indexrelid join ${relations} on c.oid = i.indrelid
      where ${ownRelation}
      group by n.nspname, c.relname, x.relam, i.indkey::text, i.indclass::text, i.indcollation::text,
        coalesce(pg_get_expr(i.indexprs, i.indrelid), ''), coalesce(pg_get_expr(i.indpred, i.indrelid), '')
      having count(*) > 1
      order by 3`,
  },
  {
    ...performance,
    name: "auth_rls_initplan",
    title: "Auth RLS initialization plan",
    level: "WARN",
    description: "Policies calling auth.<function>() or current_setting() directly run the call for every row; wrapped as (select auth.<function>()) it runs once.",
    remediation: remediationUrl("0003", "auth_rls_initplan"),
    query: `with policies as (
        select n.nspname, c.relname, p.polname,
          coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' ' || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '') as expr
        from pg_policy p join ${relations} on c.oid = p.polrelid where ${ownRelation})
      select format('Table \`%s.%s\` has a row level security policy \`%s\` that evaluates auth.<function>() or current_setting() for each row. Use (select auth.<function>()) instead.',
          nspname, relname, polname) as detail,
        jsonb_build_object('schema', nspname, 'name', relname, 'type', 'table') as metadata,
        format('auth_rls_init_plan_%s_%s_%s', nspname, relname, polname) as cache_key
      from policies
      where expr ~ '(auth\\.(uid|jwt|role)\\(\\)|current_setting\\()'
        and expr !~* 'select\\s+(auth\\.(uid|jwt|role)\\(\\)|current_setting\\()'
      order by 3`,
  },
];

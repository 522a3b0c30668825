// Project stage (advisors): the security lints, each one query over the catalog of the project's
// own schemas; "exposed" means a schema the data API serves ($1).
import { apiRolesMayUse, ownRelation, relationLintQuery, relations, remediationUrl, type LintDefinition } from "./lint";

const security = { categories: ["SECURITY" as const], type: "sql" as const };

const tableMetadata = "jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')";

export const securityLints: LintDefinition[] = [
  {
    ...security,
    name: "policy_exists_rls_disabled",
    title: "Policy exists, RLS disabled",
    level: "ERROR",
    description: "Tables with row level security policies while row level security is off: the policies are written but not applied.",
    remediation: remediationUrl("0007", "policy_exists_rls_disabled"),
    query: relationLintQuery(
      "policy_exists_rls_disabled",
      `format('Table \`%s.%s\` has policies {%s}, but row level security is not enabled on it.', n.nspname, c.relname,
        (select string_agg(p.polname, ', ' order by p.polname) from pg_policy p where p.polrelid = c.oid))`,
      "'r', 'p'",
      "not c.relrowsecurity and exists (select 1 from pg_policy p where p.polrelid = c.oid)",
    ),
  },
  {
    ...security,
    name: "rls_enabled_no_policy",
    title: "RLS enabled, no policy",
    level: "INFO",
    description: "Tables in an exposed schema with row level security on but no policy: the API roles see and change no row.",
    remediation: remediationUrl("0008", "rls_enabled_no_policy"),
    query: relationLintQuery(
      "rls_enabled_no_policy",
      "format('Table `%s.%s` has row level security enabled, but no policies exist.', n.nspname, c.relname)",
      "'r', 'p'",
      "n.nspname = any($1) and c.relrowsecurity and not exists (select 1 from pg_policy p where p.polrelid = c.oid)",
    ),
  },
  {
    ...security,
    name: "rls_disabled_in_public",
    title: "RLS disabled in public",
    level: "ERROR",
    description: "Tables in an exposed schema that anon or authenticated may use, with row level security off: every row is open through the API.",
    remediation: remediationUrl("0013", "rls_disabled_in_public"),
    query: relationLintQuery(
      "rls_disabled_in_public",
      "format('Table `%s.%s` is public, but RLS has not been enabled.', n.nspname, c.relname)",
      "'r', 'p'",
      `n.nspname = any($1) and not c.relrowsecurity and ${apiRolesMayUse}`,
    ),
  },
  {
    ...security,
    name: "security_definer_view",
    title: "Security definer view",
    level: "ERROR",
    description: "Views in an exposed schema that run with their owner's privileges and policies rather than the querying role's (no security_invoker).",
    remediation: remediationUrl("0010", "security_definer_view"),
    query: relationLintQuery(
      "security_definer_view",
      "format('View `%s.%s` is defined with the SECURITY DEFINER property.', n.nspname, c.relname)",
      "'v'",
      "n.nspname = any($1) and not coalesce(c.reloptions && array['security_invoker=true', 'security_invoker=on', 'security_invoker=1'], false)",
      "view",
    ),
  },
  {
    ...security,
    name: "materialized_view_in_api",
    title: "Materialized view in API",
    level: "WARN",
    description: "Materialized views in an exposed schema that the API roles may read: they have no row level security.",
    remediation: remediationUrl("0016", "materialized_view_in_api"),
    query: relationLintQuery(
      "materialized_view_in_api",
      "format('Materialized view `%s.%s` is selectable by anon or authenticated roles.', n.nspname, c.relname)",
      "'m'",
      "n.nspname = any($1) and (has_table_privilege('anon', c.oid, 'select') or has_table_privilege('authenticated', c.oid, 'select'))",
      "view",
    ),
  },
  {
    ...security,
    name: "function_search_path_mutable",
    title: "Function search path mutable",
    level: "WARN",
    description: "Functions without a fixed search_path: what their unqualified names resolve to depends on the caller's search_path.",
    remediation: remediationUrl("0011", "function_search_path_mutable"),
    query: `select format('Function \`%s.%s\` has a role mutable search_path.', n.nspname, p.proname) as detail,
      jsonb_build_object('schema', n.nspname, 'name', p.proname, 'type', 'function') as metadata,
      format('function_search_path_mutable_%s_%s_%s', n.nspname, p.proname, md5(p.prosrc)) as cache_key
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname <> all($2) and n.nspname not like 'pg\\_%' and p.prokind in ('f', 'p')
      and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
      and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) cfg where cfg like 'search\\_path=%')
    order by 3`,
  },
  {
    ...security,
    name: "extension_in_public",
    title: "Extension in public",
    level: "WARN",
    description: "Extensions installed in the public schema: their objects are exposed and mix with the project's own.",
    remediation: remediationUrl("0014", "extension_in_public"),
    query: `select format('Extension \`%s\` is installed in the public schema. Move it to another schema.', e.extname) as detail,
      jsonb_build_object('schema', n.nspname, 'name', e.extname, 'type', 'extension') as metadata,
      format('extension_in_public_%s', e.extname) as cache_key
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where n.nspname = 'public'
    order by 3`,
  },
  {
    ...security,
    name: "rls_references_user_metadata",
    title: "RLS references user metadata",
    level: "ERROR",
    description: "Policies reading user_metadata from the JWT: users can edit their own user_metadata, so it must not decide access.",
    remediation: remediationUrl("0015", "rls_references_user_metadata"),
    query: `select format('Table \`%s.%s\` has a row level security policy \`%s\` that references user_metadata.', n.nspname, c.relname, p.polname) as detail,
      ${tableMetadata} as metadata, format('rls_references_user_metadata_%s_%s_%s', n.nspname, c.relname, p.polname) as cache_key
    from pg_policy p join ${relations} on c.oid = p.polrelid
    where ${ownRelation}
      and (coalesce(pg_get_expr(p.polqual, p.polrelid), '') || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '')) ~ 'user_metadata'
    order by 3`,
  },
  {
    ...security,
    name: "unsupported_reg_types",
    title: "Unsupported reg types",
    level: "WARN",
    description: "Columns of reg* types that hold object ids pg_upgrade cannot keep: the database cannot be upgraded while they exist.",
    remediation: remediationUrl("0018", "unsupported_reg_types"),
    query: `select format('Table \`%s.%s\` has a column \`%s\` of type \`%s\`, which pg_upgrade does not support.', n.nspname, c.relname, a.attname,
        format_type(a.atttypid, a.atttypmod)) as detail,
      jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table', 'entity', a.attname) as metadata,
      format('unsupported_reg_types_%s_%s_%s', n.nspname, c.relname, a.attname) as cache_key
    from pg_attribute a join ${relations} on c.oid = a.attrelid
    where ${ownRelation} and c.relkind in ('r', 'p', 'm') and a.attnum > 0 and not a.attisdropped
      and a.atttypid in ('regcollation'::regtype, 'regconfig'::regtype, 'regdictionary'::regtype, 'regnamespace'::regtype,
        'regoper'::regtype, 'regoperator'::regtype, 'regproc'::regtype, 'regprocedure'::regtype)
    order by 3`,
  },
];

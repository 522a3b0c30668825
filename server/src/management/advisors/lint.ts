// Project stage (advisors): the shape of a lint as the hosted API answers it, and of a lint
// definition: fixed texts plus one catalog query giving each finding's detail, metadata and
// cache key. Queries take $1 = the schemas the data API exposes, $2 = the schemas the platform
// manages (never linted).
import type { components } from "../openapi/managementApi.generated";

/** A lint as the Management API document describes it. */
type HostedLint = components["schemas"]["V1ProjectAdvisorsResponse"]["lints"][number];

export type LintLevel = "ERROR" | "WARN" | "INFO";
export type LintCategory = "PERFORMANCE" | "SECURITY";

export interface LintDefinition {
  name: HostedLint["name"];
  title: string;
  level: LintLevel;
  categories: LintCategory[];
  description: string;
  remediation: string;
  /** `sql` lints read the catalog and statistics (the `lint_type` filter's only value). */
  type: "sql";
  /** Returns `detail`, `metadata` (jsonb) and `cache_key` per finding. */
  query: string;
}

export interface Lint {
  name: HostedLint["name"];
  title: string;
  level: LintLevel;
  facing: "EXTERNAL";
  categories: LintCategory[];
  description: string;
  detail: string;
  remediation: string;
  metadata: LintMetadata;
  cache_key: string;
}

/** What a finding names: its schema, relation, kind, foreign key (the keys its query builds). */
export type LintMetadata = NonNullable<HostedLint["metadata"]>;

export interface Finding {
  detail: string;
  metadata: LintMetadata;
  cache_key: string;
}

export function remediationUrl(number: string, name: string): string {
  return `https://supabase.com/docs/guides/database/database-linter?lint=${number}_${name}`;
}

/** The relation `c` is in the project's own schemas (namespace `n`) and no extension owns it. */
export const ownRelation = `n.nspname <> all($2) and n.nspname not like 'pg\\_%'
    and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')`;

/** A relation `c` with its namespace `n`. */
export const relations = "pg_class c join pg_namespace n on n.oid = c.relnamespace";

/** Whether an API role may use the relation `c`. */
export const apiRolesMayUse = `(has_table_privilege('anon', c.oid, 'select, insert, update, delete')
  or has_table_privilege('authenticated', c.oid, 'select, insert, update, delete'))`;

/** The query of a lint whose findings are relations `c` of the given kinds matching `condition`;
 * `detail` is an SQL expression (it may use `n` and `c`). */
export function relationLintQuery(name: string, detail: string, kinds: string, condition: string, type = "table"): string {
  return `select ${detail} as detail,
      jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', '${type}') as metadata,
      format('${name}_%s_%s', n.nspname, c.relname) as cache_key
    from ${relations} where ${ownRelation} and c.relkind in (${kinds}) and ${condition}`;
}

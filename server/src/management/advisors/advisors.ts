// Project stage (advisors): a read-only session on the project's database → the lints of one
// category that its catalog and statistics show now, in the hosted API's lint shape.
import type { ProjectSession } from "../tenants/projectSession";
import type { Finding, Lint, LintCategory, LintDefinition } from "./lint";
import { performanceLints } from "./performanceLints";
import { securityLints } from "./securityLints";

export const lintCatalog: LintDefinition[] = [...performanceLints, ...securityLints];

/** Schemas the platform makes and manages in every project: not the project's own to lint. */
export const managedSchemas = ["auth", "graphql", "graphql_public", "extensions", "information_schema", "supabase_migrations", "pgbouncer", "realtime", "storage", "vault"];

export interface AdvisorOptions {
  category: LintCategory;
  /** Schemas the data API serves. */
  exposedSchemas: string[];
  lintType?: "sql";
}

export async function runAdvisors(session: ProjectSession, options: AdvisorOptions): Promise<Lint[]> {
  const lints: Lint[] = [];
  const chosen = lintCatalog.filter((d) => d.categories.includes(options.category) && (options.lintType === undefined || d.type === options.lintType));
  for (const definition of chosen) {
    // The outer casts type both parameters for the queries that use only one of them.
    const findings = await session.run<Finding>(
      `select detail, metadata, cache_key from (${definition.query}) finding
       where $1::text[] is not null and $2::text[] is not null order by cache_key`,
      [options.exposedSchemas, managedSchemas],
    );
    for (const finding of findings) {
      lints.push({
        name: definition.name,
        title: definition.title,
        level: definition.level,
        facing: "EXTERNAL",
        categories: definition.categories,
        description: definition.description,
        detail: finding.detail,
        remediation: definition.remediation,
        metadata: finding.metadata,
        cache_key: finding.cache_key,
      });
    }
  }
  return lints;
}

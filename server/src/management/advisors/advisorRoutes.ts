// Routes (Management API): the performance and security advisors, computed now from the
// project's catalog and statistics on its read-only login.
import type { LintCategory } from "./lint";
import { runAdvisors } from "./advisors";
import { requireProject } from "../http/access";
import { ok, type Call } from "../http/operation";
import type { ApiArea } from "../http/operation";
import { withProjectSql } from "../sql/projectSql";

// The schemas every project's GraphQL data API serves.
const exposedSchemas = ["public"];

async function advise(call: Call<"v1-get-performance-advisors" | "v1-get-security-advisors">, category: LintCategory) {
  const project = await requireProject(call);
  const lintType = call.query.lint_type === "sql" ? ("sql" as const) : undefined;
  const lints = await withProjectSql(call, project, "read_only", (session) =>
    runAdvisors(session, { category, exposedSchemas, ...(lintType ? { lintType } : {}) }),
  );
  return ok({ lints });
}

export const advisorsArea: ApiArea = {
  "v1-get-performance-advisors": (call) => advise(call, "PERFORMANCE"),
  "v1-get-security-advisors": (call) => advise(call, "SECURITY"),
};

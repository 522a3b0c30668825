// API stage (pure): the /v1 calls each page makes when it opens, at most. Under the default rate
// limit (60 calls a minute per user) a user can open a dozen pages a minute and still act; polls
// (api/backoff.ts) wait when fewer than `pollReserve` calls are left. The browser test counts
// each page's calls against these numbers.
import type { ProjectPage } from "./paths";

export const pageBudgets: Record<ProjectPage | "projects", number> = {
  projects: 2, // organizations, projects
  overview: 3, // project, api-keys, health
  graphiql: 4, // project, api-keys, postgrest (the served schemas), their comments (read-only SQL)
  sql: 2, // project, migrations
  tables: 4, // project, tables (read-only SQL), security and performance advisors
  logs: 3, // project, recent requests, requests per bucket
  branches: 2, // project, branches
  functions: 2, // project, functions
  secrets: 2, // project, secrets
  settings: 4, // project, read-only mode, network restrictions, auth settings
};

/** Signing in reads the profile once. */
export const signInCalls = 1;

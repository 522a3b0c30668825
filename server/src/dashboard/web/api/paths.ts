// API stage (pure): the addresses the dashboard calls and links to. A project's GraphQL endpoint
// is where this server serves it (`/project/<ref>/graphql/v1`, as its README documents): the API
// has no field for it.

/** `/v1/projects/<ref>` followed by `rest`, the ref encoded. */
export function projectApi(ref: string, rest = ""): string {
  return `/v1/projects/${encodeURIComponent(ref)}${rest}`;
}

/** The project's GraphQL endpoint on the server at `origin`. */
export function projectGraphqlUrl(origin: string, ref: string): string {
  return `${origin}/project/${encodeURIComponent(ref)}/graphql/v1`;
}

/** The dashboard's own pages (hash routes). */
export type ProjectPage = "overview" | "graphiql" | "sql" | "tables" | "logs" | "branches" | "functions" | "secrets" | "settings";

export function pagePath(ref: string, page: ProjectPage = "overview"): string {
  const base = `/project/${encodeURIComponent(ref)}`;
  return page === "overview" ? base : `${base}/${page}`;
}

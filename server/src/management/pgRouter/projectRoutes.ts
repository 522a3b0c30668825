// Router stage: the platform's project records → where the router sends a ref's connections: the
// server recorded for the project (host:port, a socket folder or a host name) and its database.
// Projects that are not active are not routed.
import type { ProjectStore } from "../tenants/projectStore";
import type { ResolveProject } from "./databaseRouter";

export function projectRoutes(projects: ProjectStore): ResolveProject {
  return async (ref) => {
    const project = await projects.byRef(ref);
    if (!project || project.status !== "ACTIVE_HEALTHY") return undefined;
    const colon = project.server.lastIndexOf(":");
    return { host: project.server.slice(0, colon), port: Number(project.server.slice(colon + 1)), database: project.database_name };
  };
}

// Routes (Management API): the caller's access to an organization or a project. Unknown ones
// and other users' ones answer the same 403, so refs and slugs cannot be probed.
import { forbidden } from "../http/apiError";
import type { Organization } from "../tenants/organizationStore";
import type { ProjectRecord } from "../tenants/projectStore";
import type { Caller, ProjectCall } from "./operation";

export async function requireOrganization(call: Caller, slug: string): Promise<Organization> {
  const org = await call.services.organizations.get(call.user.id, slug);
  if (!org || !grantReaches(call, org.slug)) throw forbidden();
  return org;
}

/** The project named by the `ref` path parameter, when the caller may see it. */
export async function requireProject(call: ProjectCall): Promise<ProjectRecord> {
  const project = await call.services.projects.forUser(call.user.id, call.params.ref);
  if (!project || project.status === "GOING_DOWN") throw forbidden();
  if (!grantReaches(call, project.organization_slug)) throw forbidden();
  return project;
}

/** Whether the caller's credential reaches this organization (an OAuth grant names one). */
export function grantReaches(call: Caller, organizationSlug: string): boolean {
  return call.grant === undefined || call.grant.organizationSlug === organizationSlug;
}

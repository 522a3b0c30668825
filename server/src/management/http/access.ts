// Routes (Management API): the caller's access to an organization or a project. Unknown ones
// and other users' ones answer the same 403, so refs and slugs cannot be probed.
import { forbidden } from "./apiError";
import type { Organization } from "../tenants/organizationStore";
import type { ProjectRecord } from "../tenants/projectStore";
import type { Call } from "./operation";

export async function requireOrganization(call: Call, slug: string): Promise<Organization> {
  const org = await call.services.organizations.get(call.user.id, slug);
  if (!org || !grantReaches(call, org.slug)) throw forbidden();
  return org;
}

/** The project named by the `ref` path parameter, when the caller may see it. */
export async function requireProject(call: Call): Promise<ProjectRecord> {
  const ref = call.params["ref"];
  const project = ref === undefined ? undefined : await call.services.projects.forUser(call.user.id, ref);
  if (!project || project.status === "GOING_DOWN") throw forbidden();
  if (!grantReaches(call, project.organization_slug)) throw forbidden();
  return project;
}

/** Whether the caller's credential reaches this organization (an OAuth grant names one). */
export function grantReaches(call: Call, organizationSlug: string): boolean {
  return call.grant === undefined || call.grant.organizationSlug === organizationSlug;
}

// Routes (Management API): projects — create (a database from the template), list, get,
// rename, delete (with its branches), and the regions a project can be recorded in.
import { removeWithBranches } from "../branches/branchLifecycle";
import { ApiError, forbidden } from "../http/apiError";
import { publishedDocument } from "../openapi/managementDocument";
import { grantReaches, requireOrganization, requireProject } from "../http/access";
import { ok, type ApiArea, type Schema } from "../http/operation";
import { projectSummary, projectWithDatabase } from "./shapes";

/** The region codes of the document's create body, in its order. */
const regionCodes: NonNullable<Schema<"V1CreateProjectBody">["region"]>[] = publishedDocument().components.schemas["V1CreateProjectBody"].properties.region.enum;

export const projectsArea: ApiArea = {
  "v1-create-a-project": async (call) => {
    const body = call.body;
    const slug = body.organization_slug ?? body.organization_id!;
    if (body.organization_slug !== undefined && body.organization_id !== undefined && body.organization_slug !== body.organization_id) {
      throw new ApiError(400, "organization_slug and organization_id name different organizations");
    }
    if (body.template_url !== undefined) {
      // Silently making an empty project would not be what was asked for.
      throw new ApiError(400, "template_url is not supported by this server: create the project, then apply the template's SQL");
    }
    if (body.region !== undefined && body.region_selection !== undefined) {
      throw new ApiError(400, "Only one of region or region_selection can be specified");
    }
    const org = await requireOrganization(call, slug);
    // Regions are labels here: every project lives on one of the configured project servers.
    const region = body.region ?? body.region_selection!.code;
    const project = await call.services.provisioner.create({ organizationSlug: org.slug, name: body.name, region, dbPass: body.db_pass });
    return ok(projectSummary(project), 201);
  },

  "v1-list-all-projects": async (call) => {
    const rows = await call.services.projects.listForUser(call.user.id);
    return ok(rows.filter((p) => p.status !== "GOING_DOWN" && grantReaches(call, p.organization_slug)).map((p) => projectWithDatabase(call.services, p)));
  },

  "v1-get-project": async (call) => ok(projectWithDatabase(call.services, await requireProject(call))),

  "v1-update-a-project": async (call) => {
    const project = await requireProject(call);
    const { name } = call.body;
    await call.services.projects.rename(project.ref, name);
    return ok({ id: project.id, ref: project.ref, name });
  },

  "v1-delete-a-project": async (call) => {
    const project = await requireProject(call);
    // Its branches go with it (they are made from it and listed under it), each with its database.
    if (!(await removeWithBranches(call.services, project.ref))) throw forbidden();
    return ok({ id: project.id, ref: project.ref, name: project.name });
  },

  "v1-get-available-regions": async (call) => {
    const slug = call.query.organization_slug;
    if (!(await call.services.organizations.get(call.user.id, slug))) throw forbidden();
    // The document's provider enum has no value for a self-hosted server; AWS is its default.
    const specific = regionCodes.map((code) => ({ name: code, code, type: "specific" as const, provider: "AWS" as const }));
    const smartGroup: Schema<"RegionsInfo">["all"]["smartGroup"] = [
      { name: "Americas", code: "americas", type: "smartGroup" },
      { name: "Europe, Middle East and Africa", code: "emea", type: "smartGroup" },
      { name: "Asia-Pacific", code: "apac", type: "smartGroup" },
    ];
    return ok({ recommendations: { smartGroup: smartGroup[0], specific: specific.slice(0, 1) }, all: { smartGroup, specific } });
  },
};

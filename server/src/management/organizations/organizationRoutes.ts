// Routes (Management API): organizations, their members and projects, and the caller's profile.
import { entitlements } from "../organizations/entitlements";
import { projectSummary, organizationSummary } from "../projects/shapes";
import { grantReaches, requireOrganization } from "../http/access";
import { ok, type ApiArea, type Schema } from "../http/operation";

export const organizationsArea: ApiArea = {
  "v1-create-an-organization": async (call) => {
    const { name } = call.body;
    return ok(organizationSummary(await call.services.organizations.create(call.user.id, name)), 201);
  },

  "v1-list-all-organizations": async (call) =>
    ok((await call.services.organizations.list(call.user.id)).filter((o) => grantReaches(call, o.slug)).map(organizationSummary)),

  "v1-get-an-organization": async (call) => {
    const org = await requireOrganization(call, call.params.slug);
    return ok({ id: org.slug, name: org.name, plan: org.plan, opt_in_tags: [], allowed_release_channels: ["ga" as const] });
  },

  "v1-get-organization-entitlements": async (call) => {
    await requireOrganization(call, call.params.slug);
    return ok(entitlements());
  },

  "v1-list-organization-members": async (call) => {
    const org = await requireOrganization(call, call.params.slug);
    const members = await call.services.organizations.members(org.slug);
    // Sign-in here is by access token only: no second factor exists to be enabled.
    return ok(members.map((m) => ({ ...m, mfa_enabled: false })));
  },

  "v1-get-all-projects-for-organization": async (call) => {
    const org = await requireOrganization(call, call.params.slug);
    const q = call.query;
    const statuses = q.statuses?.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
    const { rows, count } = await call.services.projects.listForOrganization(org.slug, {
      offset: q.offset,
      limit: q.limit,
      search: q.search,
      sort: q.sort,
      statuses,
    });
    const projects = rows.map((p): Schema<"OrganizationProjectsResponse">["projects"][number] => {
      const s = projectSummary(p);
      return {
        ref: s.ref,
        name: s.name,
        cloud_provider: "self-hosted",
        region: s.region,
        is_branch: false,
        status: s.status,
        inserted_at: s.created_at,
        databases: [{ region: s.region, status: s.status === "INACTIVE" ? "UNKNOWN" : s.status, cloud_provider: "self-hosted", identifier: s.ref, type: "PRIMARY" }],
      };
    });
    return ok({ projects, pagination: { count, limit: q.limit, offset: q.offset } });
  },

  "v1-get-profile": async (call) =>
    ok({ gotrue_id: call.user.id, primary_email: call.user.email, username: call.user.username }),
};

// Routes (Management API): an organization claiming a project with the claim token its owner
// made (`.../claim-token`). The preview says what the move would do; the claim moves the project
// and its branches to the organization and spends the token. No plan or billing changes here.
import { ApiError } from "../http/apiError";
import { ClaimTokenStore, type ClaimableProject } from "./claimTokenStore";
import type { Organization, OrganizationPlan } from "../tenants/organizationStore";
import { requireOrganization } from "../http/access";
import { ok, type ApiArea, type CallWith, type Schema } from "../http/operation";

const planNames = ["free", "pro", "team", "enterprise", "platform"] as const;
const isPlan = (plan: string): plan is OrganizationPlan => (planNames as readonly string[]).includes(plan);
const planName = (plan: string): OrganizationPlan => (isPlan(plan) ? plan : "free");

const unknownToken = () => new ApiError(404, "No live claim token matches: it may have expired, been revoked or been used already");

async function claimant(call: CallWith<{ slug: string; token: string }>): Promise<{ org: Organization; token: string }> {
  const org = await requireOrganization(call, call.params.slug);
  return { org, token: call.params.token };
}

function preview(project: ClaimableProject, org: Organization): Schema<"OrganizationProjectClaimResponse">["preview"] {
  const errors =
    project.organization_slug === org.slug
      ? [{ key: "already_in_organization", message: "The project already belongs to this organization" }]
      : [];
  return {
    valid: errors.length === 0,
    warnings: [],
    errors,
    info: [{ key: "self_hosted", message: "Only the project's organization changes: its database, keys and endpoints stay as they are" }],
    members_exceeding_free_project_limit: [],
    source_subscription_plan: planName(project.source_plan),
    target_subscription_plan: planName(org.plan),
  };
}

export const projectClaimArea: ApiArea = {
  "v1-get-organization-project-claim": async (call) => {
    const { org, token } = await claimant(call);
    const project = await call.services.stores.claimTokens.claimable(token);
    if (!project) throw unknownToken();
    return ok({
      project: { ref: project.ref, name: project.name },
      preview: preview(project, org),
      expires_at: project.expires_at,
      created_at: project.created_at,
      created_by: project.created_by,
    });
  },

  "v1-claim-project-for-organization": async (call) => {
    const { org, token } = await claimant(call);
    const outcome = await ClaimTokenStore.claim(call.services.platform, token, org.slug);
    switch (outcome.kind) {
      case "moved":
        return ok(undefined, 204);
      case "unknown":
        throw unknownToken();
      case "same_organization":
        throw new ApiError(400, "The project already belongs to this organization");
      default: {
        const never: never = outcome;
        throw new Error(`unhandled claim outcome ${JSON.stringify(never)}`);
      }
    }
  },
};

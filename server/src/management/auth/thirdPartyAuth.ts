// Routes (Management API): a project's third-party auth integrations: an OIDC issuer whose JWTs
// the data API accepts (issuer checked), with keys given (`custom_jwks`) or fetched. A failed
// fetch is stored and shown (`resolved_at` null, `resolve_error` why); such an integration lets
// no token in until its keys resolve, which reading it alone tries again.
import type { JSONWebKeySet } from "jose";
import { checkedJwks, resolveJwks, type Resolution } from "../auth/jwksResolver";
import { ApiError } from "../http/apiError";
import { checkedTenantUrl, publicOnly } from "../outbound/tenantUrls";
import { changingKeys } from "../keys/keyStateStore";
import type { ProjectRecord } from "../tenants/projectStore";
import { ThirdPartyAuthStore, type ThirdPartyAuthRecord } from "./thirdPartyAuthStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Call, type Caller, type CallWith } from "../http/operation";

/** The hosted integration types, by issuer; any other issuer is a generic OIDC one. */
function integrationType(issuer: URL): string {
  if (issuer.hostname === "securetoken.google.com") return "firebase";
  if (issuer.hostname.startsWith("cognito-idp.")) return "aws-cognito";
  if (issuer.hostname.endsWith(".auth0.com")) return "auth0";
  if (issuer.hostname.includes("clerk.")) return "clerk";
  if (issuer.hostname === "api.workos.com") return "workos";
  return "oidc";
}

export function thirdPartyShape(tpa: ThirdPartyAuthRecord) {
  const { id, type, oidc_issuer_url, jwks_url, custom_jwks, resolved_jwks, inserted_at, updated_at, resolved_at, resolve_error } = tpa;
  return { id, type, oidc_issuer_url, jwks_url, custom_jwks, resolved_jwks, inserted_at, updated_at, resolved_at, resolve_error };
}

async function requireIntegration(call: CallWith<{ ref: string; tpa_id: string }>, project: ProjectRecord): Promise<ThirdPartyAuthRecord> {
  const tpa = await call.services.stores.thirdPartyAuth.get(project.id, call.params.tpa_id);
  if (!tpa) throw new ApiError(404, `No third-party auth integration ${call.params.tpa_id} in project ${project.ref}`);
  return tpa;
}

async function refuseTakenIssuer(store: ThirdPartyAuthStore, project: ProjectRecord, issuer: string): Promise<void> {
  if ((await store.list(project.id)).some((t) => t.oidc_issuer_url === issuer)) {
    throw new ApiError(409, `An integration for issuer ${issuer} already exists in this project`);
  }
}

async function create(call: Call<"v1-create-project-tpa-integration">) {
  const project = await requireProject(call);
  const body = call.body;
  if (body.oidc_issuer_url === undefined) throw new ApiError(400, "oidc_issuer_url is required: the data API checks every token's issuer against it");
  const policy = call.services.config.tenantUrls ?? publicOnly;
  const issuer = checkedTenantUrl("oidc_issuer_url", body.oidc_issuer_url, policy);
  const jwksUrl = body.jwks_url === undefined ? undefined : checkedTenantUrl("jwks_url", body.jwks_url, policy);
  const custom: JSONWebKeySet | null = body.custom_jwks === undefined ? null : await checkedJwks("custom_jwks", body.custom_jwks);
  await refuseTakenIssuer(call.services.stores.thirdPartyAuth, project, body.oidc_issuer_url);
  const resolution: Resolution = custom ? { kind: "resolved", jwks: custom } : await resolveJwks(issuer, jwksUrl, policy);
  const created = await changingKeys(call.services.platform, project.id, async (tx) => {
    const store = new ThirdPartyAuthStore(tx);
    await refuseTakenIssuer(store, project, body.oidc_issuer_url!);
    return store.insert(project.id, {
      type: integrationType(issuer),
      oidc_issuer_url: body.oidc_issuer_url!,
      jwks_url: body.jwks_url ?? null,
      custom_jwks: custom,
      resolved_jwks: resolution.kind === "resolved" ? resolution.jwks : null,
      resolved: resolution.kind === "resolved",
      resolve_error: resolution.kind === "failed" ? resolution.error : null,
    });
  });
  return ok(thirdPartyShape(created), 201);
}

/** An integration whose keys never resolved: fetched again, and trusted from now on if they come. */
async function retried(call: Caller, project: ProjectRecord, tpa: ThirdPartyAuthRecord): Promise<ThirdPartyAuthRecord> {
  if (tpa.resolved_at !== null || tpa.oidc_issuer_url === null) return tpa;
  // Stored URLs are fetched under today's rule, whatever the rule was when they were saved.
  const policy = call.services.config.tenantUrls ?? publicOnly;
  const resolution = await resolveJwks(new URL(tpa.oidc_issuer_url), tpa.jwks_url === null ? undefined : new URL(tpa.jwks_url), policy);
  if (resolution.kind === "failed") {
    return (await call.services.stores.thirdPartyAuth.setResolution(project.id, tpa.id, null, resolution.error)) ?? tpa;
  }
  const updated = await changingKeys(call.services.platform, project.id, (tx) => new ThirdPartyAuthStore(tx).setResolution(project.id, tpa.id, resolution.jwks, null));
  return updated ?? tpa;
}

export const thirdPartyAuthArea: ApiArea = {
  "v1-create-project-tpa-integration": create,
  "v1-list-project-tpa-integrations": async (call) => {
    const project = await requireProject(call);
    return ok((await call.services.stores.thirdPartyAuth.list(project.id)).map(thirdPartyShape));
  },
  "v1-get-project-tpa-integration": async (call) => {
    const project = await requireProject(call);
    return ok(thirdPartyShape(await retried(call, project, await requireIntegration(call, project))));
  },
  "v1-delete-project-tpa-integration": async (call) => {
    const project = await requireProject(call);
    const tpa = await requireIntegration(call, project);
    await changingKeys(call.services.platform, project.id, (tx) => new ThirdPartyAuthStore(tx).remove(project.id, tpa.id));
    return ok(thirdPartyShape(tpa));
  },
};

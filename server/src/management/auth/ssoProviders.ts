// Routes (Management API): a project's SAML identity providers: metadata given as XML or fetched
// from a URL, parsed for its entity id and signing certificates; email domains routed to one
// provider each. Refused with 404 while the project's `saml_enabled` is off, as hosted.
// Registering a provider here does not make SAML sign-in happen: no auth server runs here.
import { projectAuthConfig } from "../auth/authConfigDocument";
import { parseSamlMetadata, type MetadataSource } from "../auth/samlMetadata";
import { ApiError } from "../http/apiError";
import { checkedTenantUrl, fetchTenantUrl, publicOnly, TenantFetchError, type TenantUrlPolicy } from "../outbound/tenantUrls";
import { lockedForAuthChange } from "../keys/keyStateStore";
import type { ProjectRecord } from "../tenants/projectStore";
import { SsoProviderStore, type SsoProviderFields, type SsoProviderRecord } from "./ssoProviderStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Call, type CallWith, type ProjectCall, type Schema } from "../http/operation";

type ProviderBody = Schema<"CreateProviderBody"> | Schema<"UpdateProviderBody">;

const domainPattern = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export function providerShape(p: SsoProviderRecord) {
  const saml = {
    id: p.id,
    entity_id: p.entity_id,
    ...(p.metadata_url !== null ? { metadata_url: p.metadata_url } : {}),
    metadata_xml: p.metadata_xml,
    attribute_mapping: p.attribute_mapping,
    ...(p.name_id_format !== null ? { name_id_format: p.name_id_format } : {}),
  };
  return { id: p.id, saml, domains: p.domains, created_at: p.created_at, updated_at: p.updated_at };
}

async function samlProject(call: ProjectCall): Promise<ProjectRecord> {
  const project = await requireProject(call);
  const config = await projectAuthConfig(call.services.platform, project.id);
  if (config["saml_enabled"] !== true) throw new ApiError(404, "SAML 2.0 is disabled for this project: set saml_enabled in its auth configuration");
  return project;
}

async function requireProvider(call: CallWith<{ ref: string; provider_id: string }>, project: ProjectRecord): Promise<SsoProviderRecord> {
  const provider = await call.services.stores.ssoProviders.get(project.id, call.params.provider_id);
  if (!provider) throw new ApiError(404, `No SSO provider ${call.params.provider_id} in project ${project.ref}`);
  return provider;
}

function checkedDomains(domains: string[]): string[] {
  const normalized = domains.map((d) => d.trim().toLowerCase());
  for (const domain of normalized) if (!domainPattern.test(domain)) throw new ApiError(400, `domains: ${JSON.stringify(domain)} is not a domain name`);
  const repeatedOne = normalized.find((d, i) => normalized.indexOf(d) !== i);
  if (repeatedOne !== undefined) throw new ApiError(400, `domains: ${repeatedOne} is listed twice`);
  return normalized;
}

async function metadataXml(body: ProviderBody, policy: TenantUrlPolicy): Promise<{ xml: string; source: MetadataSource; url: string | null } | undefined> {
  if (body.metadata_xml !== undefined && body.metadata_url !== undefined) throw new ApiError(400, "Send metadata_xml or metadata_url, not both");
  if (body.metadata_xml !== undefined) return { xml: body.metadata_xml, source: "metadata_xml", url: null };
  if (body.metadata_url === undefined) return undefined;
  const url = checkedTenantUrl("metadata_url", body.metadata_url, policy);
  try {
    const xml = (await fetchTenantUrl(url, policy, "application/samlmetadata+xml, application/xml, text/xml")).toString("utf8");
    return { xml, source: "metadata_url", url: body.metadata_url };
  } catch (e) {
    if (e instanceof TenantFetchError) throw new ApiError(400, `Could not fetch metadata_url ${body.metadata_url}: ${e.message}`);
    throw e;
  }
}

/** The provider's fields after `body` (metadata fetched and parsed), and its new domains. */
async function providerFields(body: ProviderBody, current: SsoProviderRecord | undefined, policy: TenantUrlPolicy) {
  const metadata = await metadataXml(body, policy);
  if (!metadata && !current) throw new ApiError(400, "metadata_xml or metadata_url is required");
  const parsed = metadata ? parseSamlMetadata(metadata.xml, metadata.source) : undefined;
  const fields: SsoProviderFields = {
    entity_id: parsed?.entityId ?? current!.entity_id,
    certificates: parsed?.certificates ?? current!.certificates,
    metadata_xml: metadata?.xml ?? current!.metadata_xml,
    metadata_url: metadata ? metadata.url : current!.metadata_url,
    attribute_mapping: body.attribute_mapping ?? current?.attribute_mapping ?? { keys: {} },
    name_id_format: body.name_id_format ?? current?.name_id_format ?? null,
  };
  return { fields, domains: body.domains === undefined ? undefined : checkedDomains(body.domains) };
}

/** Refuses an entity id or a domain another provider of the project has (under the project's lock). */
async function refuseTaken(store: SsoProviderStore, project: ProjectRecord, entityId: string, domains: string[] | undefined, currentId: string | null) {
  if (await store.entityTaken(project.id, entityId, currentId)) {
    throw new ApiError(400, `A provider with entity id ${entityId} already exists in this project`);
  }
  const taken = domains ? await store.domainsTaken(project.id, domains, currentId) : [];
  if (taken.length > 0) throw new ApiError(400, `domains already used by another SSO provider of this project: ${taken.join(", ")}`);
}

/** Makes or changes a provider: fetched and parsed first, then checked and written under the lock. */
async function save(call: Call<"v1-create-a-sso-provider" | "v1-update-a-sso-provider">, project: ProjectRecord, current: SsoProviderRecord | undefined): Promise<SsoProviderRecord> {
  const { fields, domains } = await providerFields(call.body, current, call.services.config.tenantUrls ?? publicOnly);
  return lockedForAuthChange(call.services.platform, project.id, async (tx) => {
    const store = new SsoProviderStore(tx);
    await refuseTaken(store, project, fields.entity_id, domains, current?.id ?? null);
    let id = current?.id;
    if (id === undefined) id = await store.insert(project.id, fields);
    else await store.update(project.id, id, fields);
    if (domains !== undefined || !current) await store.setDomains(project.id, id, domains ?? []);
    return (await store.get(project.id, id))!;
  });
}

export const ssoProvidersArea: ApiArea = {
  "v1-create-a-sso-provider": async (call) => ok(providerShape(await save(call, await samlProject(call), undefined)), 201),
  "v1-list-all-sso-provider": async (call) => {
    const project = await samlProject(call);
    return ok({ items: (await call.services.stores.ssoProviders.list(project.id)).map(providerShape) });
  },
  "v1-get-a-sso-provider": async (call) => ok(providerShape(await requireProvider(call, await samlProject(call)))),
  "v1-update-a-sso-provider": async (call) => {
    const project = await samlProject(call);
    return ok(providerShape(await save(call, project, await requireProvider(call, project))));
  },
  "v1-delete-a-sso-provider": async (call) => {
    const project = await samlProject(call);
    const provider = await requireProvider(call, project);
    await call.services.stores.ssoProviders.remove(project.id, provider.id);
    return ok(providerShape(provider));
  },
};

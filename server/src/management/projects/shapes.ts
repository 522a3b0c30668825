// Routes (Management API): platform records → the response shapes of the OpenAPI document,
// with every field present (clients validate against newer schemas and reject missing keys).
import type { components } from "../openapi/managementApi.generated";
import type { Services } from "../services";
import type { Organization } from "../tenants/organizationStore";
import type { ProjectRecord } from "../tenants/projectStore";

export function organizationSummary(org: Organization) {
  return { id: org.slug, slug: org.slug, name: org.name };
}

export function projectSummary(p: ProjectRecord) {
  return {
    id: p.ref,
    ref: p.ref,
    organization_id: p.organization_slug,
    organization_slug: p.organization_slug,
    name: p.name,
    region: p.region,
    created_at: p.created_at,
    status: p.status,
  };
}

export function projectWithDatabase(services: Services, p: ProjectRecord) {
  // A project whose server was dropped from the configuration is still listed, its version unknown.
  const version = services.servers.find(p.server)?.version ?? "unknown";
  return {
    ...projectSummary(p),
    database: {
      host: p.server.replace(/:\d+$/, ""),
      version,
      postgres_engine: version.split(".")[0]!,
      release_channel: "ga",
    },
  };
}

/** The engine names of the document: the PostgreSQL majors the hosted platform runs. */
export type PostgresEngine = components["schemas"]["GetProjectAvailableRestoreVersionsResponse"]["available_versions"][number]["postgres_engine"];

/** A server's version → its major as the engine answered. A server of a major the document does
 * not list (16, 18) is answered as its major all the same: there is no truer value to give, and
 * clients that check the list refuse it (the README says which majors they take). */
export function postgresEngine(version: string): PostgresEngine {
  return version.split(".")[0] as PostgresEngine;
}

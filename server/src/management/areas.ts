// Routes (Management API): every implemented API area. A new area is one module in this folder
// (its handlers keyed by operationId) added to this list; the OpenAPI document served and the
// routes registered follow from the handlers present.
import type { AnyHandler, ApiArea } from "./http/operation";
import { databaseQueryArea } from "./sql/databaseQuery";
import { migrationsArea } from "./sql/migrations";
import { typesArea } from "./sql/types";
import { advisorsArea } from "./advisors/advisorRoutes";
import { analyticsArea } from "./logs/analytics";
import { branchesArea } from "./branches/branchRoutes";
import { functionsArea } from "./functions/functionRoutes";
import { organizationsArea } from "./organizations/organizationRoutes";
import { projectApiKeysArea } from "./keys/projectApiKeys";
import { projectHealthArea } from "./projects/projectHealth";
import { projectLifecycleArea } from "./projects/projectLifecycle";
import { projectsArea } from "./projects/projects";
import { apiKeysArea } from "./keys/apiKeys";
import { authConfigArea } from "./auth/authConfig";
import { signingKeysArea } from "./keys/signingKeys";
import { ssoProvidersArea } from "./auth/ssoProviders";
import { thirdPartyAuthArea } from "./auth/thirdPartyAuth";
import { projectBackupsArea } from "./backups/projectBackups";
import { projectJitArea } from "./access/projectJit";
import { projectNetworkArea, projectNetworkBansArea, projectSslArea } from "./access/projectNetwork";
import { projectSettingsArea } from "./settings/projectSettings";
import { secretsArea } from "./secrets/secretRoutes";
import { upgradeArea } from "./upgrades/upgradeRoutes";
import { domainsArea } from "./domains/domainRoutes";
import { replicasAndWebhooksArea } from "./projects/replicasAndWebhooks";
import { serviceSettingsArea } from "./settings/serviceSettings";
import { snippetsArea } from "./snippets/snippetRoutes";
import { billingAddonsArea } from "./projects/billingAddons";
import { projectDiskArea } from "./projects/projectDisk";
import { claimTokenArea } from "./projects/claimToken";
import { projectClaimArea } from "./projects/projectClaim";
import { databaseOpenapiArea } from "./sql/databaseOpenapi";
import { projectConfigV2Area } from "./settings/projectConfigV2";

export const apiAreas: ApiArea[] = [
  organizationsArea,
  projectsArea,
  projectApiKeysArea,
  projectLifecycleArea,
  projectHealthArea,
  apiKeysArea,
  signingKeysArea,
  authConfigArea,
  thirdPartyAuthArea,
  ssoProvidersArea,
  databaseQueryArea,
  migrationsArea,
  typesArea,
  advisorsArea,
  secretsArea,
  functionsArea,
  analyticsArea,
  branchesArea,
  projectSettingsArea,
  projectNetworkArea,
  projectNetworkBansArea,
  projectSslArea,
  projectBackupsArea,
  projectJitArea,
  upgradeArea,
  domainsArea,
  replicasAndWebhooksArea,
  serviceSettingsArea,
  snippetsArea,
  billingAddonsArea,
  projectDiskArea,
  claimTokenArea,
  projectClaimArea,
  databaseOpenapiArea,
  projectConfigV2Area,
];

export function allHandlers(areas: ApiArea[] = apiAreas): Map<string, AnyHandler> {
  const handlers = new Map<string, AnyHandler>();
  for (const area of areas) {
    for (const [operationId, handler] of Object.entries(area)) {
      if (handlers.has(operationId)) throw new Error(`two handlers for ${operationId}`);
      // The router validated the request against this operation's schemas: its types hold.
      handlers.set(operationId, handler as AnyHandler);
    }
  }
  return handlers;
}

// Routes (Management API): every implemented API area. A new area is one module in this folder
// (its handlers keyed by operationId) added to this list; the OpenAPI document served and the
// routes registered follow from the handlers present.
import type { AnyHandler, ApiArea } from "./operation";
import { databaseQueryArea } from "./databaseQuery";
import { migrationsArea } from "./migrations";
import { typesArea } from "./types";
import { advisorsArea } from "./advisors";
import { analyticsArea } from "./analytics";
import { branchesArea } from "./branches";
import { functionsArea } from "./functions";
import { organizationsArea } from "./organizations";
import { projectApiKeysArea } from "./projectApiKeys";
import { projectHealthArea } from "./projectHealth";
import { projectLifecycleArea } from "./projectLifecycle";
import { projectsArea } from "./projects";
import { apiKeysArea } from "./apiKeys";
import { authConfigArea } from "./authConfig";
import { signingKeysArea } from "./signingKeys";
import { ssoProvidersArea } from "./ssoProviders";
import { thirdPartyAuthArea } from "./thirdPartyAuth";
import { projectBackupsArea } from "./projectBackups";
import { projectJitArea } from "./projectJit";
import { projectNetworkArea, projectNetworkBansArea, projectSslArea } from "./projectNetwork";
import { projectSettingsArea } from "./projectSettings";
import { secretsArea } from "./secrets";
import { upgradeArea } from "./upgrade";
import { domainsArea } from "./domains";
import { replicasAndWebhooksArea } from "./replicasAndWebhooks";
import { serviceSettingsArea } from "./serviceSettings";
import { snippetsArea } from "./snippets";
import { billingAddonsArea } from "./billingAddons";
import { projectDiskArea } from "./projectDisk";
import { claimTokenArea } from "./claimToken";
import { projectClaimArea } from "./projectClaim";
import { databaseOpenapiArea } from "./databaseOpenapi";
import { projectConfigV2Area } from "./projectConfigV2";

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

// Management API composition: the platform database → the stores the handlers read and write,
// built once per process. Work inside a transaction binds its own (`new ApiKeyStore(tx)`).
import type { Sql } from "./platform/sql";
import { ApiKeyStore } from "./keys/apiKeyStore";
import { AuthConfigStore } from "./auth/authConfigStore";
import { ClaimTokenStore } from "./projects/claimTokenStore";
import { DomainStore } from "./domains/domainStore";
import { OAuthStore } from "./users/oauthStore";
import { ServiceSettingsStore } from "./settings/serviceSettingsStore";
import { SigningKeyStore } from "./keys/signingKeyStore";
import { SnippetStore } from "./snippets/snippetStore";
import { SsoProviderStore } from "./auth/ssoProviderStore";
import { ThirdPartyAuthStore } from "./auth/thirdPartyAuthStore";
import { UpgradeStore } from "./upgrades/upgradeStore";

export interface PlatformStores {
  apiKeys: ApiKeyStore;
  authConfig: AuthConfigStore;
  claimTokens: ClaimTokenStore;
  domains: DomainStore;
  oauth: OAuthStore;
  serviceSettings: ServiceSettingsStore;
  signingKeys: SigningKeyStore;
  snippets: SnippetStore;
  ssoProviders: SsoProviderStore;
  thirdPartyAuth: ThirdPartyAuthStore;
  upgrades: UpgradeStore;
}

export function platformStores(sql: Sql): PlatformStores {
  return {
    apiKeys: new ApiKeyStore(sql),
    authConfig: new AuthConfigStore(sql),
    claimTokens: new ClaimTokenStore(sql),
    domains: new DomainStore(sql),
    oauth: new OAuthStore(sql),
    serviceSettings: new ServiceSettingsStore(sql),
    signingKeys: new SigningKeyStore(sql),
    snippets: new SnippetStore(sql),
    ssoProviders: new SsoProviderStore(sql),
    thirdPartyAuth: new ThirdPartyAuthStore(sql),
    upgrades: new UpgradeStore(sql),
  };
}

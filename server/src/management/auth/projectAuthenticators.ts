// Auth (Management API): a project → the authenticator its data API checks requests with: its
// legacy JWT keys (unless turned off), its opaque API keys, and one verifier over its signing
// keys in use or previously used and its third-party issuers. Each request reads the project's
// key generation (one indexed row); when another process changed the keys, the authenticator is
// rebuilt, so its token cache never outlives a disabled, deleted, revoked or rotated key.
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload } from "jose";
import { allowedRoles, type Authenticator } from "../../identity";
import { asymmetricAlgorithms, JwtVerifier, sharedSecretSource, type KeySource } from "../../jwtVerifier";
import { Keyring } from "../../keys";
import type { Sql } from "../platform/sql";
import { ApiKeyStore, type ApiKeyRecord } from "../keys/apiKeyStore";
import { readKeyState } from "../keys/keyStateStore";
import type { ProjectRecord } from "../tenants/projectStore";
import { SigningKeyStore, type SigningKeyRecord } from "../keys/signingKeyStore";
import { ThirdPartyAuthStore, type ThirdPartyAuthRecord } from "./thirdPartyAuthStore";
import { sharedSecretBytes } from "../keys/signingKeyMaterial";

/** The claims an opaque key runs with: publishable → anon; secret → its template, else service_role. */
export function opaqueKeyClaims(key: Pick<ApiKeyRecord, "type" | "secret_jwt_template">): JWTPayload {
  if (key.type === "publishable") return { role: "anon" };
  return { role: "service_role", ...(key.secret_jwt_template ?? {}) };
}

function signingKeySources(project: ProjectRecord, keys: SigningKeyRecord[]): KeySource[] {
  const trusted = keys.filter((k) => k.status === "in_use" || k.status === "previously_used");
  // Until the JWT secret is registered as a signing key it stays trusted, as before signing keys.
  const secretTrusted = !keys.some((k) => k.legacy);
  const sources: KeySource[] = secretTrusted ? [sharedSecretSource(project.jwt_secret)] : [];
  for (const key of trusted.filter((k) => k.algorithm === "HS256")) {
    sources.push({ name: `signing key ${key.id}`, algorithms: ["HS256"], key: sharedSecretBytes(key.private_jwk) });
  }
  const publicKeys = trusted.flatMap((k) => (k.public_jwk ? [k.public_jwk] : []));
  if (publicKeys.length > 0) {
    const algorithms = [...new Set(publicKeys.map((k) => k.alg!))];
    sources.push({ name: "signing keys", algorithms, key: createLocalJWKSet({ keys: publicKeys }) });
  }
  return sources;
}

function thirdPartySources(integrations: ThirdPartyAuthRecord[]): KeySource[] {
  return integrations.flatMap((tpa) => {
    const jwks = tpa.resolved_jwks as JSONWebKeySet | null;
    if (!jwks || tpa.oidc_issuer_url === null) return [];
    return [{ name: `third-party ${tpa.oidc_issuer_url}`, algorithms: asymmetricAlgorithms, key: createLocalJWKSet(jwks), issuer: tpa.oidc_issuer_url }];
  });
}

export async function loadAuthenticator(sql: Sql, project: ProjectRecord, legacyKeysEnabled: boolean): Promise<Authenticator> {
  const [apiKeys, signingKeys, integrations] = await Promise.all([
    new ApiKeyStore(sql).list(project.id),
    new SigningKeyStore(sql).list(project.id),
    new ThirdPartyAuthStore(sql).list(project.id),
  ]);
  // The legacy API keys are signed with the JWT secret: once that key is retired, so are they.
  const legacySecret = signingKeys.find((k) => k.legacy);
  const secretRetired = legacySecret !== undefined && legacySecret.status !== "in_use" && legacySecret.status !== "previously_used";
  return {
    keyring: new Keyring(project.jwt_secret),
    legacyKeysEnabled: legacyKeysEnabled && !secretRetired,
    opaqueKeys: new Map(apiKeys.map((k) => [k.api_key, opaqueKeyClaims(k)])),
    userTokens: new JwtVerifier([...signingKeySources(project, signingKeys), ...thirdPartySources(integrations)]),
    roles: allowedRoles([]),
  };
}

export class ProjectAuthenticators {
  private readonly built = new Map<number, { generation: number; auth: Promise<Authenticator> }>();

  constructor(private readonly sql: Sql) {}

  async current(project: ProjectRecord): Promise<Authenticator> {
    const state = await readKeyState(this.sql, project.id);
    const known = this.built.get(project.id);
    if (known && known.generation === state.generation) return known.auth;
    const auth = loadAuthenticator(this.sql, project, state.legacyApiKeysEnabled);
    this.built.set(project.id, { generation: state.generation, auth });
    // A load that failed (platform unreachable) is tried again on the next request.
    auth.catch(() => this.built.get(project.id)?.auth === auth && this.built.delete(project.id));
    return auth;
  }

  forget(projectId: number): void {
    this.built.delete(projectId);
  }
}

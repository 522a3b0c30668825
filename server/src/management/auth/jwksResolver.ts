// Auth (Management API): a third-party issuer's settings → its public key set: the custom JWKS
// given, else the JWKS URL (or the one the issuer's OpenID discovery document names) fetched
// under the tenant-URL rule (outbound/tenantUrls). A failed fetch is the answer (recorded and
// shown by its kind), never an invented key set; what was fetched is never quoted back.
import { importJWK, type JSONWebKeySet, type JWK } from "jose";
import { DomainError, invalid } from "../errors/domainError";
import { fetchTenantJson, TenantFetchError, type TenantUrlPolicy } from "../outbound/tenantUrls";
import { refuseShortRsa } from "../keys/signingKeyMaterial";

export type Resolution = { kind: "resolved"; jwks: JSONWebKeySet } | { kind: "failed"; error: string };

const privateMembers = ["d", "p", "q", "dp", "dq", "qi", "k"];

/** A key set of public asymmetric keys that jose can use, or a 400 naming what is wrong. */
export async function checkedJwks(field: string, value: unknown): Promise<JSONWebKeySet> {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw invalid(`${field} must be a JWKS document: {"keys": [ ... ]} with at least one key`);
  for (const [i, key] of keys.entries()) {
    const jwk = key as JWK;
    if (typeof jwk !== "object" || jwk === null || jwk.kty === "oct") throw invalid(`${field}.keys[${i}] must be a public asymmetric key`);
    if (privateMembers.some((m) => m in jwk)) throw invalid(`${field}.keys[${i}] holds private key material; send the public key only`);
    refuseShortRsa(`${field}.keys[${i}]`, jwk);
    try {
      await importJWK(jwk, jwk.alg ?? (jwk.kty === "RSA" ? "RS256" : jwk.kty === "EC" ? "ES256" : "EdDSA"));
    } catch (e) {
      throw invalid(`${field}.keys[${i}] is not a usable key: ${(e as Error).message}`);
    }
  }
  return { keys: keys as JWK[] };
}

/** Where the keys come from: the JWKS URL given, or the one the issuer's discovery document
 * names (judged by the same rule, and never quoted: it is fetched content). */
async function keySetLocation(issuer: URL | undefined, jwksUrl: URL | undefined, policy: TenantUrlPolicy): Promise<{ url: URL; label: string } | string> {
  if (jwksUrl !== undefined) return { url: jwksUrl, label: jwksUrl.href };
  if (issuer === undefined) return "no custom_jwks, jwks_url or issuer to resolve keys from";
  const discovery = new URL(`${issuer.href.replace(/\/$/, "")}/.well-known/openid-configuration`);
  let document: unknown;
  try {
    document = await fetchTenantJson(discovery, policy);
  } catch (e) {
    if (e instanceof TenantFetchError) return `could not fetch keys from ${discovery.href} (OpenID discovery): ${e.message}`;
    throw e;
  }
  const named = (document as { jwks_uri?: unknown } | null)?.jwks_uri;
  if (typeof named !== "string" || !URL.canParse(named)) return `the OpenID discovery document ${discovery.href} names no jwks_uri URL`;
  return { url: new URL(named), label: `the jwks_uri that ${discovery.href} names` };
}

export async function resolveJwks(issuer: URL | undefined, jwksUrl: URL | undefined, policy: TenantUrlPolicy): Promise<Resolution> {
  const location = await keySetLocation(issuer, jwksUrl, policy);
  if (typeof location === "string") return { kind: "failed", error: location };
  try {
    return { kind: "resolved", jwks: await checkedJwks(`the key set at ${location.label}`, await fetchTenantJson(location.url, policy)) };
  } catch (e) {
    if (e instanceof DomainError) return { kind: "failed", error: e.message };
    if (e instanceof TenantFetchError) return { kind: "failed", error: `could not fetch keys from ${location.label}: ${e.message}` };
    throw e;
  }
}

// Auth (Management API): a third-party issuer's settings → its public key set: the custom JWKS
// given, else the JWKS URL (or the one the issuer's OpenID discovery document names) fetched
// once with a short timeout. Without network the fetch fails, and the failure is the answer
// (recorded and shown), never an invented key set.
import { importJWK, type JSONWebKeySet, type JWK } from "jose";
import { ApiError } from "../http/apiError";
import { refuseShortRsa } from "./signingKeyMaterial";

export type Resolution = { kind: "resolved"; jwks: JSONWebKeySet } | { kind: "failed"; error: string };

const fetchTimeoutMs = 3000;
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);
const privateMembers = ["d", "p", "q", "dp", "dq", "qi", "k"];

/** An https URL (http only on loopback), or a 400 naming the field. */
export function checkedUrl(field: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiError(400, `${field} is not a URL: ${value}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopbackHosts.has(url.hostname))) {
    throw new ApiError(400, `${field} must be an https URL`);
  }
  return url;
}

/** A key set of public asymmetric keys that jose can use, or a 400 naming what is wrong. */
export async function checkedJwks(field: string, value: unknown): Promise<JSONWebKeySet> {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new ApiError(400, `${field} must be a JWKS document: {"keys": [ ... ]} with at least one key`);
  for (const [i, key] of keys.entries()) {
    const jwk = key as JWK;
    if (typeof jwk !== "object" || jwk === null || jwk.kty === "oct") throw new ApiError(400, `${field}.keys[${i}] must be a public asymmetric key`);
    if (privateMembers.some((m) => m in jwk)) throw new ApiError(400, `${field}.keys[${i}] holds private key material; send the public key only`);
    refuseShortRsa(`${field}.keys[${i}]`, jwk);
    try {
      await importJWK(jwk, jwk.alg ?? (jwk.kty === "RSA" ? "RS256" : jwk.kty === "EC" ? "ES256" : "EdDSA"));
    } catch (e) {
      throw new ApiError(400, `${field}.keys[${i}] is not a usable key: ${(e as Error).message}`);
    }
  }
  return { keys: keys as JWK[] };
}

async function fetchJson(url: URL): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(fetchTimeoutMs), headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  return response.json();
}

function reason(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e as Error).message;
}

export async function resolveJwks(issuer: URL | undefined, jwksUrl: URL | undefined): Promise<Resolution> {
  let location = jwksUrl;
  try {
    if (location === undefined && issuer !== undefined) {
      const discovery = new URL(`${issuer.href.replace(/\/$/, "")}/.well-known/openid-configuration`);
      const document = (await fetchJson(discovery)) as { jwks_uri?: unknown };
      if (typeof document.jwks_uri !== "string") return { kind: "failed", error: `${discovery} names no jwks_uri` };
      location = checkedUrl("jwks_uri", document.jwks_uri);
    }
    if (location === undefined) return { kind: "failed", error: "no custom_jwks, jwks_url or issuer to resolve keys from" };
    return { kind: "resolved", jwks: await checkedJwks(`the key set at ${location}`, await fetchJson(location)) };
  } catch (e) {
    const message = e instanceof ApiError ? e.message : `could not fetch keys from ${location ?? issuer}: ${reason(e)}`;
    return { kind: "failed", error: message };
  }
}

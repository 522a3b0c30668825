// Auth stage: a request's `apiKey` and `Authorization` headers → the role and claims it runs with,
// or the reason it is refused (always a 401).
import type { JWTPayload } from "jose";
import type { ServerConfig } from "./config";
import { JwtVerifier, jwksSource, sharedSecretSource } from "./jwtVerifier";
import { apiRoles, type Keyring } from "./keys";
import { LruMap } from "../../src/util/LruMap";

export type Allowed = { kind: "allowed"; role: string; claims: JWTPayload };
export type Identity = Allowed | { kind: "refused"; message: string };

export interface Authenticator {
  /** Verifies API keys: the project's own, signed with its secret. */
  keyring: Keyring;
  /** False once the project turned its JWT API keys off: only opaque keys then open it. */
  legacyKeysEnabled?: boolean;
  /** The project's opaque API keys (`sb_publishable_…`, `sb_secret_…`) → the claims each runs with. */
  opaqueKeys?: ReadonlyMap<string, JWTPayload>;
  /** Verifies user tokens: the secret and any configured key sources. */
  userTokens: JwtVerifier;
  /** Roles a user token may name: the API roles and those the operator listed. */
  roles: ReadonlySet<string>;
}

/** The roles a user token may name: the API roles and any the operator listed. */
export function allowedRoles(extraRoles: readonly string[]): ReadonlySet<string> {
  return new Set([...apiRoles, ...extraRoles]);
}

/** The key sources and roles the configuration names. */
export async function authenticator(
  config: Pick<ServerConfig, "jwtSecret" | "jwks" | "extraRoles">,
  keyring: Keyring,
): Promise<Authenticator> {
  const userTokens = new JwtVerifier([
    sharedSecretSource(config.jwtSecret),
    ...(config.jwks === undefined ? [] : [await jwksSource(config.jwks)]),
  ]);
  return { keyring, userTokens, roles: allowedRoles(config.extraRoles) };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

type Headers = Record<string, string | string[] | undefined>;

// A client sends the same apiKey and Authorization headers with every request: the identity they
// verified to is remembered, until the earliest expiry (and from the latest not-before) of the
// key and the token, as the verifiers check them. It is remembered per authenticator, which is
// immutable: a project whose keys change gets a new one, so a removed or revoked key, or a
// disabled kind of key, is forgotten with the old authenticator.
const rememberedPerAuthenticator = 10_000;
// Bounds what the cache holds (a few MB at most); longer headers are verified every time.
const longestRemembered = 4_096;

interface Remembered {
  identity: Allowed;
  /** Seconds since the epoch: valid while notBefore <= now < expires. */
  notBefore: number;
  expires: number;
}

const remembered = new WeakMap<Authenticator, LruMap<string, Remembered>>();

/** Header values never hold a line feed, so the pair reads back unambiguously. */
function rememberedKey(apiKey: string, authorization: string | undefined): string {
  return authorization === undefined ? apiKey : `${apiKey}\n${authorization}`;
}

function timeBounds(claims: JWTPayload[]): { notBefore: number; expires: number } {
  let notBefore = -Infinity;
  let expires = Infinity;
  for (const c of claims) {
    if (typeof c.nbf === "number") notBefore = Math.max(notBefore, c.nbf);
    if (typeof c.exp === "number") expires = Math.min(expires, c.exp);
  }
  return { notBefore, expires };
}

/** The identity these headers verified to before and still do now, without verifying again. */
export function rememberedIdentity(auth: Authenticator, headers: Headers): Allowed | undefined {
  const apiKey = header(headers["apikey"]);
  if (!apiKey) return undefined;
  const known = remembered.get(auth)?.get(rememberedKey(apiKey, header(headers["authorization"])));
  if (known === undefined) return undefined;
  // Time claims are compared as the verifiers compare them: whole seconds, no tolerance.
  const now = Math.floor(Date.now() / 1000);
  return known.notBefore <= now && now < known.expires ? known.identity : undefined;
}

function remember(auth: Authenticator, key: string, identity: Allowed, claims: JWTPayload[]): void {
  if (key.length > longestRemembered) return;
  let cache = remembered.get(auth);
  if (!cache) remembered.set(auth, (cache = new LruMap(rememberedPerAuthenticator)));
  cache.set(key, { identity, ...timeBounds(claims) });
}

export async function identify(auth: Authenticator, headers: Headers): Promise<Identity> {
  const known = rememberedIdentity(auth, headers);
  if (known) return known;
  const apiKey = header(headers["apikey"]);
  if (!apiKey) return { kind: "refused", message: "No API key found in request: send it in the apiKey header" };
  const key = await apiKeyClaims(auth, apiKey);
  if (key.kind === "refused") return key;
  const authorization = header(headers["authorization"]);
  if (authorization === undefined) {
    remember(auth, rememberedKey(apiKey, undefined), key, [key.claims]);
    return key;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return { kind: "refused", message: "The Authorization header must be `Bearer <JWT>`" };
  const token = await auth.userTokens.verify(match[1]!);
  if (token.kind === "invalid") return { kind: "refused", message: `Invalid JWT: ${token.reason}` };
  // As PostgREST does, a token without a role claim runs as anon.
  const role = token.claims.role ?? "anon";
  if (typeof role !== "string" || !auth.roles.has(role)) {
    return { kind: "refused", message: `Invalid JWT: its role claim names none of ${[...auth.roles].join(", ")}` };
  }
  const identity: Allowed = { kind: "allowed", role, claims: token.claims };
  remember(auth, rememberedKey(apiKey, authorization), identity, [key.claims, token.claims]);
  return identity;
}

const opaqueKeyPattern = /^sb_(publishable|secret)_/;

async function apiKeyClaims(auth: Authenticator, apiKey: string): Promise<Identity> {
  const invalid = { kind: "refused", message: "Invalid API key" } as const;
  if (opaqueKeyPattern.test(apiKey)) {
    const claims = auth.opaqueKeys?.get(apiKey);
    const role = claims?.role;
    return typeof role === "string" && auth.roles.has(role) ? { kind: "allowed", role, claims: claims! } : invalid;
  }
  if (auth.legacyKeysEnabled === false) {
    return { kind: "refused", message: "Legacy API keys are disabled: use a publishable or secret key" };
  }
  const key = await auth.keyring.verify(apiKey);
  // A key is one the project issued: signed with its secret, for the anon or service role.
  if (key.kind === "invalid" || (key.claims.role !== "anon" && key.claims.role !== "service_role")) return invalid;
  return { kind: "allowed", role: key.claims.role, claims: key.claims };
}

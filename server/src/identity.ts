// Auth stage: a request's `apiKey` and `Authorization` headers → the role and claims it runs with,
// or the reason it is refused (always a 401).
import type { JWTPayload } from "jose";
import type { ServerConfig } from "./config";
import { JwtVerifier, jwksSource, sharedSecretSource } from "./jwtVerifier";
import { apiRoles, type Keyring } from "./keys";

export type Identity =
  | { kind: "allowed"; role: string; claims: JWTPayload }
  | { kind: "refused"; message: string };

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

export async function identify(
  auth: Authenticator,
  headers: Record<string, string | string[] | undefined>,
): Promise<Identity> {
  const apiKey = header(headers["apikey"]);
  if (!apiKey) return { kind: "refused", message: "No API key found in request: send it in the apiKey header" };
  const key = await apiKeyClaims(auth, apiKey);
  if (key.kind === "refused") return key;
  const authorization = header(headers["authorization"]);
  if (authorization === undefined) return key;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return { kind: "refused", message: "The Authorization header must be `Bearer <JWT>`" };
  const token = await auth.userTokens.verify(match[1]!);
  if (token.kind === "invalid") return { kind: "refused", message: `Invalid JWT: ${token.reason}` };
  // As PostgREST does, a token without a role claim runs as anon.
  const role = token.claims.role ?? "anon";
  if (typeof role !== "string" || !auth.roles.has(role)) {
    return { kind: "refused", message: `Invalid JWT: its role claim names none of ${[...auth.roles].join(", ")}` };
  }
  return { kind: "allowed", role, claims: token.claims };
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

// Auth stage: the project's JWT secret → signed API keys, and tokens → verified claims.
// The algorithm is fixed by the key (HS256), never read from the token, so `none` never passes.
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import { LruMap } from "../../src/util/LruMap";

export const apiRoles = ["anon", "authenticated", "service_role"] as const;
export type ApiRole = (typeof apiRoles)[number];

export function isApiRole(value: unknown): value is ApiRole {
  return typeof value === "string" && (apiRoles as readonly string[]).includes(value);
}

const algorithm = "HS256";
// API keys are long-lived and derived only from the secret, so a restart prints the same keys.
const keyIssuedAt = 1_700_000_000;
const keyLifetimeSeconds = 10 * 365 * 24 * 3600;
// Clients send the same few tokens on every request; checking a signature again costs more than
// the rest of the server's work on a request, so a verified token is remembered (bounded).
const verifiedCacheSize = 10_000;

export interface ApiKeys {
  anon: string;
  serviceRole: string;
}

export type Verified =
  | { kind: "valid"; claims: JWTPayload }
  | { kind: "invalid"; reason: string };

export class Keyring {
  private readonly secret: Uint8Array;
  private readonly verified = new LruMap<string, JWTPayload>(verifiedCacheSize);

  constructor(secret: string) {
    this.secret = new TextEncoder().encode(secret);
  }

  sign(claims: JWTPayload): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: algorithm, typ: "JWT" }).sign(this.secret);
  }

  async apiKeys(): Promise<ApiKeys> {
    const key = (role: ApiRole) =>
      this.sign({ iss: "pg_graphql", role, iat: keyIssuedAt, exp: keyIssuedAt + keyLifetimeSeconds });
    return { anon: await key("anon"), serviceRole: await key("service_role") };
  }

  async verify(token: string): Promise<Verified> {
    const known = this.verified.get(token);
    // Time passes between requests: a remembered token is valid only while its claims say so;
    // past that it goes through the full check again, which gives the reason it fails.
    if (known !== undefined && validNow(known)) return { kind: "valid", claims: known };
    try {
      const { payload } = await jwtVerify(token, this.secret, { algorithms: [algorithm] });
      this.verified.set(token, payload);
      return { kind: "valid", claims: payload };
    } catch (e) {
      return { kind: "invalid", reason: describe(e) };
    }
  }
}

/** The time claims as jwtVerify checks them (no clock tolerance). */
function validNow(claims: JWTPayload): boolean {
  const now = Math.floor(Date.now() / 1000);
  return (claims.exp === undefined || claims.exp > now) && (claims.nbf === undefined || claims.nbf <= now);
}

function describe(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired) return "the token has expired";
  if (e instanceof joseErrors.JWTClaimValidationFailed) return `the token's "${e.claim}" claim is not valid now`;
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return "the token's signature does not match";
  if (e instanceof joseErrors.JOSEError) return "the token is malformed";
  throw e;
}

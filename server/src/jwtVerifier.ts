// Auth stage: a JWT → its verified claims, or the reason it is refused. One verifier over
// pluggable key sources (the project's shared secret, a JWKS file or URL, and any source added
// later): a token's `alg` header picks the sources that accept it, tried in order until one's key
// matches, and the algorithms are fixed by each source, never taken from the token, so `none`
// and HS/RS confusion never pass. A source may also fix the issuer its tokens must name.
import { readFile } from "node:fs/promises";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import { LruMap } from "../../src/util/LruMap";

export type Verified = { kind: "valid"; claims: JWTPayload } | { kind: "invalid"; reason: string };

/** Where the keys for some algorithms come from. `key` may look keys up per token (by `kid`,
 * issuer, ...), so a source of keys that change while serving fits the same shape. */
export interface KeySource {
  /** Shown in messages and logs (never a key). */
  readonly name: string;
  readonly algorithms: readonly string[];
  /** The key for a token's protected header; jose checks the signature with it. */
  readonly key: Uint8Array | JWTVerifyGetKey;
  /** When set, a token verified with this source's keys must name this issuer (`iss`). */
  readonly issuer?: string;
}

export const sharedSecretAlgorithms = ["HS256", "HS384", "HS512"] as const;
export const asymmetricAlgorithms = ["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"] as const;

export function sharedSecretSource(secret: string): KeySource {
  return { name: "shared secret", algorithms: sharedSecretAlgorithms, key: new TextEncoder().encode(secret) };
}

/** Public keys from a JWKS document: an http(s) URL, fetched and cached by jose
 * (refetched when a token names an unknown `kid`), or a file read once at start-up. */
export async function jwksSource(location: string): Promise<KeySource> {
  if (/^https?:\/\//.test(location)) {
    return { name: `JWKS ${location}`, algorithms: asymmetricAlgorithms, key: createRemoteJWKSet(new URL(location)) };
  }
  const document = JSON.parse(await readFile(location, "utf8")) as JSONWebKeySet;
  if (!Array.isArray(document.keys)) throw new Error(`${location} is not a JWKS document (no "keys" array)`);
  return { name: `JWKS file ${location}`, algorithms: asymmetricAlgorithms, key: createLocalJWKSet(document) };
}

// Clients send the same few tokens on every request; checking a signature again costs more than
// the rest of the server's work on a request, so a verified token is remembered (bounded).
const verifiedCacheSize = 10_000;

export class JwtVerifier {
  private readonly verified = new LruMap<string, JWTPayload>(verifiedCacheSize);

  constructor(private readonly sources: readonly KeySource[]) {}

  async verify(token: string): Promise<Verified> {
    const known = this.verified.get(token);
    // Time passes between requests: a remembered token is valid only while its claims say so;
    // past that it goes through the full check again, which gives the reason it fails.
    if (known !== undefined && validNow(known)) return { kind: "valid", claims: known };
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return { kind: "invalid", reason: "the token is malformed" };
    }
    const candidates = this.sources.filter((s) => alg !== undefined && s.algorithms.includes(alg));
    if (candidates.length === 0) return { kind: "invalid", reason: "the token's algorithm is not accepted" };
    let refusal: Verified | undefined;
    for (const source of candidates) {
      const outcome = await this.verifyWith(token, source);
      if (outcome.kind === "valid") {
        this.verified.set(token, outcome.claims);
        return { kind: "valid", claims: outcome.claims };
      }
      if (!outcome.otherKeyMayMatch) return { kind: "invalid", reason: outcome.reason };
      // A key that matched under the wrong issuer says more than keys that did not match.
      if (refusal === undefined || outcome.keyMatched) refusal = { kind: "invalid", reason: outcome.reason };
    }
    return refusal!;
  }

  private async verifyWith(
    token: string,
    source: KeySource,
  ): Promise<{ kind: "valid"; claims: JWTPayload } | { kind: "invalid"; reason: string; otherKeyMayMatch: boolean; keyMatched: boolean }> {
    try {
      const options = { algorithms: [...source.algorithms], ...(source.issuer !== undefined ? { issuer: source.issuer } : {}) };
      const { payload } = await jwtVerify(token, source.key as JWTVerifyGetKey, options);
      return { kind: "valid", claims: payload };
    } catch (e) {
      const wrongIssuer = e instanceof joseErrors.JWTClaimValidationFailed && e.claim === "iss";
      const wrongKey = e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JWKSNoMatchingKey;
      return { kind: "invalid", reason: describe(e), otherKeyMayMatch: wrongIssuer || wrongKey, keyMatched: wrongIssuer };
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
  if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === "iss") return "the token's issuer (iss) is not accepted";
  if (e instanceof joseErrors.JWTClaimValidationFailed) return `the token's "${e.claim}" claim is not valid now`;
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return "the token's signature does not match";
  if (e instanceof joseErrors.JWKSNoMatchingKey) return "no key of the key set matches the token";
  if (e instanceof joseErrors.JWKSTimeout || e instanceof joseErrors.JOSENotSupported) return `the token cannot be checked: ${e.message}`;
  if (e instanceof joseErrors.JOSEError) return "the token is malformed";
  // A JWKS URL that cannot be fetched: the token is refused, and the reason says why.
  if (e instanceof Error) return `the token cannot be checked: ${e.message}`;
  throw e;
}

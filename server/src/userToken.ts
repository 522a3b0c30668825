// Auth stage: a signing key and a user's identity → a signed, expiring user JWT, as an auth
// server would hand one to a signed-in user (used by the `jwt` command and the demo's banner).
import { importJWK, SignJWT, type JWK } from "jose";

export type SigningMaterial =
  | { kind: "secret"; secret: Uint8Array; kid?: string }
  | { kind: "jwk"; jwk: JWK; algorithm: string; kid: string };

export interface UserTokenClaims {
  sub: string;
  role: string;
  expiresInSeconds: number;
  /** Seconds since the epoch. */
  now?: number;
}

export async function signUserToken(key: SigningMaterial, claims: UserTokenClaims): Promise<string> {
  const iat = claims.now ?? Math.floor(Date.now() / 1000);
  const payload = {
    sub: claims.sub,
    role: claims.role,
    // What a hosted project's auth server puts in a signed-in user's token.
    aud: "authenticated",
    iat,
    exp: iat + claims.expiresInSeconds,
  };
  switch (key.kind) {
    case "secret":
      return new SignJWT(payload).setProtectedHeader({ alg: "HS256", typ: "JWT", ...(key.kid ? { kid: key.kid } : {}) }).sign(key.secret);
    case "jwk": {
      const privateKey = await importJWK(key.jwk, key.algorithm);
      return new SignJWT(payload).setProtectedHeader({ alg: key.algorithm, typ: "JWT", kid: key.kid }).sign(privateKey);
    }
    default: {
      const unknown: never = key;
      throw new Error(`unknown signing material ${JSON.stringify(unknown)}`);
    }
  }
}

// Auth stage: the project's JWT secret → signed API keys (HS256), and API keys → verified claims.
import { SignJWT, type JWTPayload } from "jose";
import { JwtVerifier, sharedSecretSource, type Verified } from "./jwtVerifier";

export const apiRoles = ["anon", "authenticated", "service_role"] as const;
export type ApiRole = (typeof apiRoles)[number];

const algorithm = "HS256";
// API keys are long-lived and derived only from the secret, so a restart prints the same keys.
const keyIssuedAt = 1_700_000_000;
const keyLifetimeSeconds = 10 * 365 * 24 * 3600;

export interface ApiKeys {
  anon: string;
  serviceRole: string;
}

export class Keyring {
  private readonly secret: Uint8Array;
  private readonly verifier: JwtVerifier;

  constructor(secret: string) {
    this.secret = new TextEncoder().encode(secret);
    this.verifier = new JwtVerifier([sharedSecretSource(secret)]);
  }

  sign(claims: JWTPayload): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: algorithm, typ: "JWT" }).sign(this.secret);
  }

  async apiKeys(): Promise<ApiKeys> {
    const key = (role: ApiRole) =>
      this.sign({ iss: "pg_graphql", role, iat: keyIssuedAt, exp: keyIssuedAt + keyLifetimeSeconds });
    return { anon: await key("anon"), serviceRole: await key("service_role") };
  }

  /** Checks a token against the shared secret alone: API keys are always the project's own. */
  verify(token: string): Promise<Verified> {
    return this.verifier.verify(token);
  }
}

// Bench stage: identity. Input: a secret and claims. Output: HS256 tokens, the same for every
// engine, so each request runs as the role in its `role` claim.
import { createHmac } from "node:crypto";

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString("base64url");
}

export function signHs256(claims: Record<string, unknown>, secret: string): string {
  const head = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = base64url(JSON.stringify(claims));
  const signature = createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${signature}`;
}

/** The bench's JWT secret; only ever used on loopback against a throwaway cluster. */
export const benchJwtSecret = "bench-secret-bench-secret-bench-secret-0123";

const farFuture = 4_102_444_800; // 2100-01-01

export function userToken(): string {
  return signHs256(
    { role: "authenticated", sub: "00000000-0000-0000-0000-000000000001", aud: "authenticated", exp: farFuture },
    benchJwtSecret,
  );
}

export function anonKey(): string {
  return signHs256({ role: "anon", iss: "bench", exp: farFuture }, benchJwtSecret);
}

export function serviceKey(): string {
  return signHs256({ role: "service_role", iss: "bench", exp: farFuture }, benchJwtSecret);
}

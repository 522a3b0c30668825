// Auth stage: a request's `apiKey` and `Authorization` headers → the role and claims it runs with,
// or the reason it is refused (always a 401).
import type { JWTPayload } from "jose";
import { isApiRole, type ApiRole, type Keyring } from "./keys";

export type Identity =
  | { kind: "allowed"; role: ApiRole; claims: JWTPayload }
  | { kind: "refused"; message: string };

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export async function identify(
  keyring: Keyring,
  headers: Record<string, string | string[] | undefined>,
): Promise<Identity> {
  const apiKey = header(headers["apikey"]);
  if (!apiKey) return { kind: "refused", message: "No API key found in request: send it in the apiKey header" };
  const key = await keyring.verify(apiKey);
  // A key is one the project issued: signed with its secret, for the anon or service role.
  if (key.kind === "invalid" || (key.claims.role !== "anon" && key.claims.role !== "service_role")) {
    return { kind: "refused", message: "Invalid API key" };
  }

  const authorization = header(headers["authorization"]);
  if (authorization === undefined) {
    return { kind: "allowed", role: key.claims.role, claims: key.claims };
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return { kind: "refused", message: "The Authorization header must be `Bearer <JWT>`" };
  const token = await keyring.verify(match[1]!);
  if (token.kind === "invalid") return { kind: "refused", message: `Invalid JWT: ${token.reason}` };
  const role = token.claims.role;
  if (!isApiRole(role)) {
    return { kind: "refused", message: "Invalid JWT: its role claim names none of anon, authenticated, service_role" };
  }
  return { kind: "allowed", role, claims: token.claims };
}

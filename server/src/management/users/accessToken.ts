// Auth stage (Management API): personal access tokens: `sbp_` and 40 hex digits, kept only as
// their sha-256, and the `Authorization` header → the token it carries.
import { createHash, randomBytes } from "node:crypto";

export const tokenPattern = /^sbp_[a-f0-9]{40}$/;

export function newAccessToken(): string {
  return `sbp_${randomBytes(20).toString("hex")}`;
}

export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** OAuth access tokens: `sbp_oauth_` and 40 hex digits (issued by the OAuth token endpoint). */
export const oauthTokenPattern = /^sbp_oauth_[a-f0-9]{40}$/;

export type BearerToken =
  | { kind: "token"; token: string }
  | { kind: "oauth"; token: string }
  | { kind: "missing" }
  | { kind: "malformed" };

export function bearerToken(header: string | string[] | undefined): BearerToken {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === "") return { kind: "missing" };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  if (match && oauthTokenPattern.test(match[1]!)) return { kind: "oauth", token: match[1]! };
  if (!match || !tokenPattern.test(match[1]!)) return { kind: "malformed" };
  return { kind: "token", token: match[1]! };
}

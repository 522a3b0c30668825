// Keys (Management API): a project's publishable and secret keys → the document's ApiKeyResponse,
// a secret key masked unless revealed; listed by the keys' own routes and beside the legacy keys.
import { createHash } from "node:crypto";
import { ApiKeyStore, type ApiKeyRecord } from "./apiKeyStore";
import type { ProjectRecord } from "../tenants/projectStore";
import type { Caller, Schema } from "../http/operation";

const visiblePrefixLength = 4;

function prefixOf(key: ApiKeyRecord): string {
  return key.api_key.slice(0, `sb_${key.type}_`.length + visiblePrefixLength);
}

export function apiKeyShape(key: ApiKeyRecord, reveal: boolean): Schema<"ApiKeyResponse"> {
  const masked = key.type === "secret" && !reveal;
  return {
    api_key: masked ? `${prefixOf(key)}${"·".repeat(16)}` : key.api_key,
    id: key.id,
    type: key.type,
    prefix: prefixOf(key),
    name: key.name,
    description: key.description,
    hash: createHash("sha256").update(key.api_key).digest("base64url"),
    secret_jwt_template: key.type === "secret" ? { role: "service_role", ...(key.secret_jwt_template ?? {}) } : null,
    inserted_at: key.inserted_at,
    updated_at: key.updated_at,
  };
}

/** The project's publishable and secret keys, as listed beside its legacy ones. */
export async function listedApiKeys(call: Caller & { query: { reveal?: boolean } }, project: ProjectRecord) {
  const keys = await call.services.stores.apiKeys.list(project.id);
  return keys.map((k) => apiKeyShape(k, call.query.reveal === true));
}


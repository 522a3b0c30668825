// OAuth stage (Management API): the published OpenAPI document → every OAuth scope its operations
// name (`x-oauth-scope`), the set an OAuth app may be granted.
import { publishedDocument } from "../openapi/managementDocument";

export function knownScopes(): string[] {
  const scopes = new Set<string>();
  for (const item of Object.values(publishedDocument().paths)) {
    for (const operation of Object.values(item)) {
      const scope = (operation as { "x-oauth-scope"?: unknown })["x-oauth-scope"];
      if (typeof scope === "string") scopes.add(scope);
    }
  }
  return [...scopes].sort();
}

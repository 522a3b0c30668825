// Test support: reflect a live database into an ApiSchema and answer an introspection query
// against it (used by the schema stage's unit tests).

import type pg from "pg";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import { collectFields, type CollectContext } from "../../src/document/collectFields";
import { VariableScope } from "../../src/document/inputValue";
import { prepareDocument } from "../../src/document/prepareDocument";
import { resolveIntrospectionField } from "../../src/execute/introspection";
import { Resolver } from "../../src/execute/Resolver";
import type { ApiSchema } from "../../src/schema/apiSchema";

export async function reflectSchema(client: Pick<pg.Client, "query">): Promise<ApiSchema> {
  const { rows } = await client.query(REFLECTION_QUERY);
  return Resolver.apiOf(rows[0].catalog);
}

/** Runs the introspection root fields of `query`; other root fields are left out. */
export function introspect(api: ApiSchema, query: string, variables: Record<string, unknown> = {}): Record<string, unknown> {
  const doc = prepareDocument(query, null);
  if (doc.kind === "error") throw new Error(doc.message);
  const ctx: CollectContext = { fragments: doc.fragments, scope: new VariableScope(doc.operation, variables) };
  const out: Record<string, unknown> = {};
  for (const field of collectFields([doc.operation.selectionSet], (t) => t === "Query", ctx)) {
    if (field.name === "__schema" || field.name === "__type") out[field.responseKey] = resolveIntrospectionField(api, field, ctx);
  }
  return out;
}

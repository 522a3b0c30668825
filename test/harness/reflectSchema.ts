// Test support: reflect a live database into an ApiSchema and answer an
// introspection query against it (used by the schema stage's unit tests).

import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from "graphql";
import type pg from "pg";
import { parseCatalog } from "../../src/catalog/parseCatalog";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import type { ApiSchema } from "../../src/schema/apiSchema";
import { buildSchema } from "../../src/schema/buildSchema";
import { resolveIntrospectionField } from "../../src/schema/introspection";

export async function reflectSchema(client: Pick<pg.Client, "query">): Promise<ApiSchema> {
  const { rows } = await client.query(REFLECTION_QUERY);
  return buildSchema(parseCatalog(rows[0].catalog));
}

/** Runs the introspection root fields of `query`; other root fields are left out. */
export function introspect(api: ApiSchema, query: string, variables: Record<string, unknown> = {}): Record<string, unknown> {
  const doc = parse(query);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  let operation: OperationDefinitionNode | undefined;
  for (const def of doc.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
    else if (def.kind === Kind.OPERATION_DEFINITION) operation ??= def;
  }
  if (operation === undefined) throw new Error("no operation");
  const out: Record<string, unknown> = {};
  for (const sel of operation.selectionSet.selections) {
    if (sel.kind !== Kind.FIELD) continue;
    const field: FieldNode = sel;
    out[field.alias?.value ?? field.name.value] = resolveIntrospectionField(api, field, { variables, fragments });
  }
  return out;
}

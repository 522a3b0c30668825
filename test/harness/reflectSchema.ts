// Test support: reflect a live database into an ApiSchema, answer an introspection query against
// it (the schema stage's unit tests), and give a describe block a fresh reflected database.

import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import { collectFields, type CollectContext } from "../../src/document/collectFields";
import { VariableScope } from "../../src/document/inputValue";
import { prepareDocument } from "../../src/document/prepareDocument";
import { resolveIntrospectionField } from "../../src/execute/introspection";
import { Resolver } from "../../src/execute/Resolver";
import type { ApiSchema } from "../../src/schema/apiSchema";
import { freshDatabase, type TestDatabase } from "./db";

export async function reflectSchema(client: Pick<pg.Client, "query">): Promise<ApiSchema> {
  const { rows } = await client.query(REFLECTION_QUERY);
  return Resolver.apiOf(rows[0].catalog);
}

/** A fresh database for a describe block: `setupSql` run, a connection kept, its API reflected. */
export interface ReflectedDatabase {
  db: TestDatabase;
  client: pg.Client;
  api: ApiSchema;
}

/** Registers the block's beforeAll and afterAll; the fields are set once beforeAll has run. */
export function reflectedDatabase(setupSql: string, timeoutMs = 60_000): ReflectedDatabase {
  const out = {} as ReflectedDatabase;
  beforeAll(async () => {
    out.db = await freshDatabase();
    await out.db.query(setupSql);
    out.client = await out.db.connect();
    out.api = await reflectSchema(out.client);
  }, timeoutMs);
  afterAll(async () => {
    await out.client?.end();
    await out.db?.drop();
  });
  return out;
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

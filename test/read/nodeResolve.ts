// Test support: the resolver's pipeline run from Node over node-pg against a real server — the
// very statements PLV8 would run, with the same assembly of their JSON texts.
import type pg from "pg";
import { parseCatalog } from "../../src/catalog/parseCatalog";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import { prepareDocument } from "../../src/document/prepareDocument";
import { compileOperation } from "../../src/execute/compileOperation";
import { errorResponse, variablesError } from "../../src/execute/response";
import { buildSchema } from "../../src/schema/buildSchema";

export interface Answer {
  response: any;
  statements: { sql: string; params: (string | null)[] }[];
}

export async function resolveInNode(
  client: pg.Client,
  query: string,
  variables: unknown = {},
  operationName: string | null = null,
): Promise<Answer> {
  const badVariables = variablesError(variables);
  if (badVariables) return { response: JSON.parse(badVariables), statements: [] };
  const catalog = await client.query(REFLECTION_QUERY);
  const api = buildSchema(parseCatalog(catalog.rows[0].catalog));
  if (api.loadError) return { response: JSON.parse(errorResponse(api.loadError, true)), statements: [] };
  const doc = prepareDocument(query, operationName);
  if (doc.kind === "error") return { response: JSON.parse(errorResponse(doc.message, true)), statements: [] };
  const compiled = compileOperation(api, doc, (variables ?? {}) as Record<string, unknown>);
  const statements = compiled.statements.filter((s): s is NonNullable<typeof s> => s !== null);
  const results: (string | null)[] = [];
  // Like graphql.resolve's exception block: an error undoes every statement of the request.
  const inTransaction = await client.query("savepoint __resolve").then(
    () => true,
    () => false,
  );
  try {
    for (const s of compiled.statements) {
      if (!s) {
        results.push(null);
        continue;
      }
      const res = await client.query(s.sql, s.params);
      results.push(res.rows[0]?.result ?? null);
    }
  } catch (e) {
    if (inTransaction) await client.query("rollback to savepoint __resolve");
    return { response: JSON.parse(errorResponse((e as Error).message, false)), statements };
  }
  if (inTransaction) await client.query("release savepoint __resolve");
  return { response: JSON.parse(compiled.assemble(results)), statements };
}

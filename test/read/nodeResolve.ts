// Test support: the resolver's steps run from Node over node-pg against a real server — the very
// statements PLV8 would run, with the same assembly of their JSON texts.
import type pg from "pg";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import { errorResponse } from "../../src/execute/response";
import { Resolver } from "../../src/execute/Resolver";
import type { ApiSchema } from "../../src/schema/apiSchema";

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
  const catalog = await client.query(REFLECTION_QUERY);
  return resolveWithApi(client, Resolver.apiOf(catalog.rows[0].catalog), query, variables, operationName);
}

/** Like resolveInNode, with the API schema of the connection's catalog already built. */
export async function resolveWithApi(
  client: pg.Client,
  api: ApiSchema,
  query: string,
  variables: unknown = {},
  operationName: string | null = null,
): Promise<Answer> {
  const compiled = Resolver.compile(api, query, JSON.stringify(variables ?? null), operationName);
  const statements = compiled.statements.filter((s): s is NonNullable<typeof s> => s !== null);
  const results: (string | null)[] = [];
  // Like graphql.resolve: an error undoes every statement of the request.
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

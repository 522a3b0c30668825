// Test support: the resolver's steps run from Node over node-pg against a real server — the very
// statements PLV8 would run, with the same assembly of their JSON texts.
import type pg from "pg";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import { errorResponse } from "../../src/execute/response";
import { boundStatements } from "../../src/execute/compileOperation";
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
  // The statements as run, their parameters bound (a nested insert's later ones read earlier results).
  const statements: { sql: string; params: (string | null)[] }[] = [];
  // Like graphql.resolve: an error undoes every statement of the request.
  const inTransaction = await client.query("savepoint __resolve").then(
    () => true,
    () => false,
  );
  let results: (string | null)[];
  try {
    const run = boundStatements(compiled);
    let next = run.next();
    while (!next.done) {
      statements.push(next.value);
      const res = await client.query(next.value.sql, next.value.params);
      next = run.next(res.rows[0]?.result ?? null);
    }
    results = next.value;
  } catch (e) {
    if (inTransaction) await client.query("rollback to savepoint __resolve");
    return { response: JSON.parse(errorResponse((e as Error).message, false)), statements };
  }
  if (inTransaction) await client.query("release savepoint __resolve");
  return { response: JSON.parse(compiled.assemble(results)), statements };
}

// Test support for the opt-in features: requests through graphql.resolve (PLV8, as deployed), the
// answer's data when it must succeed, the statements the Node pipeline runs for a request, and
// login roles shared by the test cluster.
import type pg from "pg";
import { expect } from "vitest";
import { resolveInNode } from "../read/nodeResolve";
import { resolve, type GraphQLAnswer } from "../write/support";

export { databaseWithExtension, failure, resolve, rows } from "../write/support";

/** SQL creating a login role once per cluster (roles are shared by every test database). */
export function loginRole(name: string): string {
  return `do $$ begin
    if not exists (select 1 from pg_roles where rolname = '${name}') then create role ${name} login; end if;
  end $$;
  grant usage on schema graphql to ${name};`;
}

/** The answer's data; the request must not fail. */
export async function data(client: pg.Client, query: string, variables: unknown = {}): Promise<any> {
  const answer: GraphQLAnswer = await resolve(client, query, variables);
  expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  return answer.data;
}

/** The `id` column of a plain SQL query's rows, in order. */
export async function sqlIds(client: pg.Client, sql: string): Promise<number[]> {
  return (await client.query(sql)).rows.map((r) => r.id as number);
}

/** The ids of a connection's edges. */
export function edgeIds(connection: { edges: { node: { id: number } }[] }): number[] {
  return connection.edges.map((e) => e.node.id);
}

/** The SQL the Node pipeline runs for a request (the same statements PLV8 runs), and its answer. */
export async function statementsOf(client: pg.Client, query: string, variables: unknown = {}): Promise<{ response: any; sql: string[] }> {
  const answer = await resolveInNode(client, query, variables);
  return { response: answer.response, sql: answer.statements.map((s) => s.sql) };
}

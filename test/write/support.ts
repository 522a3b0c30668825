// Test support for the write API: requests through graphql.resolve inside PostgreSQL (so the
// wrapper's subtransaction decides what a failed request leaves behind), and the statements the
// pipeline compiles for a request, seen from Node without running them.
import type pg from "pg";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import { Resolver } from "../../src/execute/Resolver";
import { freshDatabase, type TestDatabase } from "../harness/db";

/** A fresh database with pg_graphql (names inflected) and the given schema, and a client on it. */
export async function databaseWithExtension(schema: string): Promise<{ db: TestDatabase; client: pg.Client }> {
  const db = await freshDatabase();
  const client = await db.connect();
  await client.query(`
    create extension pg_graphql cascade;
    comment on schema public is '@graphql({"inflect_names": true})';
  `);
  await client.query(schema);
  return { db, client };
}

export interface GraphQLAnswer {
  data?: any;
  errors?: { message: string }[];
}

export async function resolve(client: pg.Client, query: string, variables: unknown = {}): Promise<GraphQLAnswer> {
  const { rows } = await client.query("select graphql.resolve($1, $2::jsonb) as r", [query, JSON.stringify(variables)]);
  return rows[0].r as GraphQLAnswer;
}

/** The error messages of an answer that must have failed as a whole. */
export function failure(answer: GraphQLAnswer): string[] {
  if (answer.data !== null || !answer.errors) throw new Error("expected a failed request, got " + JSON.stringify(answer));
  return answer.errors.map((e) => e.message);
}

export interface CompiledStatement {
  sql: string;
  params: (string | null)[];
}

/** The statements a request compiles to for the client's current role, without running them. */
export async function compiledStatements(client: pg.Client, query: string, variables: Record<string, unknown> = {}): Promise<CompiledStatement[]> {
  const catalog = await client.query(REFLECTION_QUERY);
  const compiled = Resolver.compile(Resolver.apiOf(catalog.rows[0].catalog), query, JSON.stringify(variables), null);
  if (compiled.statements.length === 0) throw new Error("no statements: " + compiled.assemble([]));
  return compiled.statements.flat().map((s) => ({ sql: s.sql, params: s.params }));
}

export async function rows<R = Record<string, unknown>>(client: pg.Client, sql: string): Promise<R[]> {
  return (await client.query(sql)).rows as R[];
}

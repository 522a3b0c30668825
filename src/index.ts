// Bundle entry: what the PLV8 wrapper functions call. Input: the arguments of
// graphql.resolve; output: the response as JSON text (PostgreSQL parses it once into jsonb).
import { graphqlSync, GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";

declare const __PG_GRAPHQL_VERSION__: string;

export const version: string = typeof __PG_GRAPHQL_VERSION__ === "string" ? __PG_GRAPHQL_VERSION__ : "development";

// Stand-in until the reflected schema is wired in: the empty API answers `__typename` only.
const emptySchema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: "Query", fields: { heartbeat: { type: GraphQLString } } }),
});

export function resolve(query: string, variables: unknown, operationName: string | null, _extensions: unknown): string {
  const result = graphqlSync({
    schema: emptySchema,
    source: query,
    variableValues: (variables ?? {}) as Record<string, unknown>,
    operationName: operationName ?? undefined,
  });
  return JSON.stringify(result);
}

/** Figures a test or an operator can read through `graphql._bundle_info()`. */
export function stats(): Record<string, unknown> {
  return { version };
}

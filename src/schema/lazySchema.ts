// Schema stage, the graphql-js schema object: root types and named types → a GraphQLSchema whose
// type map is collected on first use instead of at construction.

import { GraphQLSchema, specifiedDirectives, type GraphQLSchemaConfig } from "graphql";

/**
 * graphql-js's constructor walks every field of every type to collect the type map, which forces
 * every field thunk of every table. A request plans from the root types and the few types it
 * selects, so the walk waits until something asks for the whole map (introspection, a node
 * lookup, printing); then a real schema is built once and its maps are shared. Validation is
 * never run on our schemas (requests are checked by the plan stage), hence `assumeValid`.
 */
export function lazySchema(config: Omit<GraphQLSchemaConfig, "assumeValid" | "directives">): GraphQLSchema {
  let full: GraphQLSchema | null = null;
  const real = (): Record<string, unknown> =>
    (full ??= new GraphQLSchema({ ...config, assumeValid: true })) as unknown as Record<string, unknown>;
  const schema = Object.create(GraphQLSchema.prototype) as Record<string, unknown>;
  // The fields graphql-js's constructor sets (graphql 16); the maps are read through getters.
  Object.assign(schema, {
    __validationErrors: [],
    description: config.description,
    extensions: config.extensions ?? {},
    astNode: config.astNode,
    extensionASTNodes: config.extensionASTNodes ?? [],
    _queryType: config.query,
    _mutationType: config.mutation,
    _subscriptionType: config.subscription,
    _directives: specifiedDirectives,
  });
  for (const key of ["_typeMap", "_subTypeMap", "_implementationsMap"]) {
    Object.defineProperty(schema, key, { get: () => real()[key], enumerable: true });
  }
  return schema as unknown as GraphQLSchema;
}

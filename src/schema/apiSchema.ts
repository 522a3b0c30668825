// Schema stage, result type: what buildSchema() hands to the plan and execute stages.
// Input: a Catalog; output: the graphql-js schema (fields tagged with resolutions) plus settings.

import type { GraphQLSchema } from "graphql";
import type { Catalog, SchemaInfo } from "../catalog/model";

export interface ApiSchema {
  /** Every type and field the role may use; fields carry `extensions.resolution`. */
  readonly graphql: GraphQLSchema;
  /**
   * The same API minus the entities of schemas that did not opt in to introspection: what
   * `__schema` / `__type` describe. Null when no exposed schema opted in, in which case
   * `__schema` and `__type` are unknown fields of Query. Those selections are answered by
   * resolveIntrospectionField() in execute/introspection.
   */
  readonly introspection: GraphQLSchema | null;
  readonly catalog: Catalog;
  /** Settings of the first schema on the search path; a table's own schema's settings are in the catalog. */
  readonly settings: SchemaInfo["directives"];
  /**
   * When set, the schema could not be built (e.g. a malformed comment directive): every
   * request answers with only `errors: [{ message: loadError }]`, as pg_graphql does.
   */
  readonly loadError: string | null;
}

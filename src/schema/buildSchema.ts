// Schema stage, entry point: catalog model → ApiSchema (graphql-js types tagged with resolutions).

import { GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";
import type { Catalog } from "../catalog/model";
import type { ApiSchema } from "./apiSchema";

export function buildSchema(catalog: Catalog): ApiSchema {
  const settings = catalog.schemas[0]?.directives ?? { inflectNames: false, maxRows: 30, introspection: false };
  const query = new GraphQLObjectType({ name: "Query", fields: { placeholder: { type: GraphQLString } } });
  const graphql = new GraphQLSchema({ query });
  return { graphql, introspection: null, catalog, settings, loadError: catalog.loadError };
}

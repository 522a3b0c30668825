// OpenAPI stage: the hosted Management API's OpenAPI document (management-api.json, MIT, see
// LICENSE beside it) → the document this server implements: only the operations it has
// handlers for, with the adjustments below. Routes and validation are generated from it.
import spec from "./management-api.json";
import { adjustments } from "./adjustments";

export type OpenApiDocument = {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, { operationId?: string } & Record<string, unknown>>>;
  components: { schemas: Record<string, any> } & Record<string, unknown>;
} & Record<string, unknown>;

/** The whole published document (every operation), as a fresh copy. */
export function publishedDocument(): OpenApiDocument {
  return structuredClone(spec) as unknown as OpenApiDocument;
}

/** Every operation with this server's adjustments: the contract the handlers' types are
 * generated from (`npm run management-types`). */
export function adjustedDocument(): OpenApiDocument {
  const doc = publishedDocument();
  for (const adjust of adjustments) adjust(doc);
  return doc;
}

/** The document of the implemented operations; throws when a handler names no operation. */
export function implementedDocument(operationIds: Set<string>): OpenApiDocument {
  // Adjusted first, so operations this server adds to the document count as known.
  const doc = adjustedDocument();
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation.operationId !== undefined && operationIds.has(operation.operationId)) seen.add(operation.operationId);
      else delete item[method];
    }
    if (Object.keys(item).length === 0) delete doc.paths[path];
  }
  const unknown = [...operationIds].filter((id) => !seen.has(id));
  if (unknown.length > 0) throw new Error(`handlers for operations the document does not have: ${unknown.join(", ")}`);
  doc.info = { ...doc.info, title: "pg_graphql Management API", description: "The operations of the hosted Management API that this server implements." };
  return doc;
}

// HTTP stage: a decoded POST body or GET query string → a GraphQL payload, or the reason it is
// malformed (a 400). Checked before the database is touched.
import { Kind, parse, type OperationTypeNode } from "graphql";
import type { GraphQLPayload } from "./resolveStatement";

export type PayloadResult = { kind: "ok"; payload: GraphQLPayload } | { kind: "malformed"; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function payloadFromBody(body: unknown): PayloadResult {
  if (!isObject(body)) return { kind: "malformed", message: "The request body must be a JSON object" };
  const { query, variables, operationName } = body;
  if (typeof query !== "string") return { kind: "malformed", message: 'The request body needs a "query" string' };
  if (variables !== undefined && variables !== null && !isObject(variables)) {
    return { kind: "malformed", message: '"variables" must be a JSON object' };
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") {
    return { kind: "malformed", message: '"operationName" must be a string' };
  }
  return {
    kind: "ok",
    payload: { query, variables: variables ?? null, operationName: operationName ?? null },
  };
}

export function payloadFromSearch(search: Record<string, unknown>): PayloadResult {
  const single = (name: string): string | undefined | null => {
    const v = search[name];
    if (v === undefined) return undefined;
    return typeof v === "string" ? v : null;
  };
  const query = single("query");
  const variables = single("variables");
  const operationName = single("operationName");
  if (query === null || variables === null || operationName === null) {
    return { kind: "malformed", message: "Each of query, variables and operationName may be given once" };
  }
  let decoded: unknown = undefined;
  if (variables !== undefined && variables !== "") {
    try {
      decoded = JSON.parse(variables);
    } catch {
      return { kind: "malformed", message: '"variables" must be JSON' };
    }
  }
  return payloadFromBody({ query, variables: decoded, operationName });
}

/** The kind of operation the payload selects, or undefined when the document does not parse or
 * names no single operation (the resolver reports those as GraphQL errors). */
export function operationType(payload: GraphQLPayload): OperationTypeNode | undefined {
  let document;
  try {
    document = parse(payload.query, { noLocation: true });
  } catch {
    return undefined;
  }
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const selected =
    payload.operationName === null
      ? operations.length === 1 ? operations[0] : undefined
      : operations.find((o) => o.name?.value === payload.operationName);
  return selected?.operation;
}

// HTTP stage: a POST body's JSON text or a GET query string → a GraphQL payload whose variables
// are the exact JSON text the client sent, or the reason it is malformed (a 400). Checked before
// the database is touched.
import { outlineJson } from "./jsonOutline";
import type { GraphQLPayload } from "./resolveStatement";

export type PayloadResult = { kind: "ok"; payload: GraphQLPayload } | { kind: "malformed"; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string, what: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: `${what} is not valid JSON: ${(e as Error).message}` };
  }
}

/** The variables' exact text when it is an object nesting at most `maxDepth` levels. */
function variablesText(text: string | undefined, value: unknown, maxDepth: number): PayloadResult | string | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value) || text === undefined) return { kind: "malformed", message: '"variables" must be a JSON object' };
  const depth = outlineJson(text).depth;
  if (depth > maxDepth) {
    return { kind: "malformed", message: `"variables" nest ${depth} levels deep; at most ${maxDepth} are accepted` };
  }
  return text;
}

function assemble(query: unknown, operationName: unknown, variables: PayloadResult | string | null): PayloadResult {
  if (typeof query !== "string") return { kind: "malformed", message: 'The request needs a "query" string' };
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") {
    return { kind: "malformed", message: '"operationName" must be a string' };
  }
  if (variables !== null && typeof variables === "object") return variables;
  return { kind: "ok", payload: { query, variables, operationName: operationName ?? null } };
}

export function payloadFromBody(text: string, maxDepth: number): PayloadResult {
  const parsed = parseJson(text, "The request body");
  if (!parsed.ok) return { kind: "malformed", message: parsed.message };
  const body = parsed.value;
  if (!isObject(body)) return { kind: "malformed", message: "The request body must be a JSON object" };
  // Only variables need their exact text found, which costs a walk over the whole body.
  const variables =
    body.variables === undefined || body.variables === null
      ? null
      : variablesText(outlineJson(text).members.get("variables"), body.variables, maxDepth);
  return assemble(body.query, body.operationName, variables);
}

export function payloadFromSearch(search: Record<string, unknown>, maxDepth: number): PayloadResult {
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
  if (variables === undefined || variables === "") return assemble(query, operationName, null);
  const parsed = parseJson(variables, '"variables"');
  if (!parsed.ok) return { kind: "malformed", message: parsed.message };
  return assemble(query, operationName, variablesText(variables.trim(), parsed.value, maxDepth));
}

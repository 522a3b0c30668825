// Execute stage: the response envelopes for errors, as pg_graphql shapes them.

/** Document-level errors carry no `data` key; errors found while planning carry `"data": null`. */
export function errorResponse(message: string, omitData: boolean): string {
  const errors = '"errors": [{"message": ' + JSON.stringify(message) + "}]";
  return omitData ? "{" + errors + "}" : '{"data": null, ' + errors + "}";
}

/** The request's variables must be a JSON object (or absent); else this error answer. */
export function variablesError(variables: unknown): string | null {
  if (variables === null || variables === undefined) return null;
  if (typeof variables === "object" && !Array.isArray(variables)) return null;
  return errorResponse("variables must be an object", true);
}

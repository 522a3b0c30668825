// Execute stage: the response envelopes for errors, as pg_graphql shapes them.

/** Document-level errors carry no `data` key; errors found while planning carry `"data": null`. */
export function errorResponse(message: string, omitData: boolean): string {
  const errors = '"errors": [{"message": ' + JSON.stringify(message) + "}]";
  return omitData ? "{" + errors + "}" : '{"data": null, ' + errors + "}";
}

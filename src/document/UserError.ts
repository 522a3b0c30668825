// Document/plan stages: a mistake in the request, reported in the response's `errors` array.
// `omitData` marks the document-level errors that pg_graphql answers without a `data` key.

export class UserError extends Error {
  constructor(
    message: string,
    readonly omitData = false,
  ) {
    super(message);
    this.name = "UserError";
  }
}

// HTTP stage (Management API): an error a route answers with its own status and
// `{"message": ...}` body; anything else thrown is a 500 whose details stay in the log.
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** What both unknown and other users' resources answer, so the two cannot be told apart. */
export const notPermitted = "Your account does not have the necessary privileges to access this endpoint, or the resource does not exist";

export function forbidden(): ApiError {
  return new ApiError(403, notPermitted);
}

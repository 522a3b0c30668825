// HTTP stage (Management API): an error a route answers with its own status and
// `{"message": ...}` body, and the one mapping of the domain errors below HTTP to statuses;
// anything else thrown is a 500 whose details stay in the log.
import type { DomainErrorKind } from "../errors/domainError";
import { unreachable } from "../../../../src/util/invariant";

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

/** The status a domain error is answered with. */
export function statusOfDomainError(kind: DomainErrorKind): number {
  switch (kind) {
    case "invalid":
      return 400;
    case "refused":
      return 403;
    case "notFound":
      return 404;
    case "conflict":
      return 409;
    case "unavailable":
      return 503;
    default:
      return unreachable(kind, "domain error kind");
  }
}

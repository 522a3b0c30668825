// Domain errors (Management API kernel): what a store or a service refuses, said without HTTP.
// The HTTP layer maps each kind to its status in one place (http/apiError.ts, `statusOfDomainError`).
export type DomainErrorKind = "invalid" | "notFound" | "conflict" | "refused" | "unavailable";

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/** The request cannot be carried out as asked (a bad value, a state that does not allow it). */
export const invalid = (message: string): DomainError => new DomainError("invalid", message);
/** What the request names does not exist (any more). */
export const notFound = (message: string): DomainError => new DomainError("notFound", message);
/** The request collides with what exists (a name taken, a change under way). */
export const conflict = (message: string): DomainError => new DomainError("conflict", message);
/** The caller may not do this. */
export const refused = (message: string): DomainError => new DomainError("refused", message);
/** The work cannot be taken now (a busy server, a queue past its wait); it may succeed later. */
export const unavailable = (message: string): DomainError => new DomainError("unavailable", message);

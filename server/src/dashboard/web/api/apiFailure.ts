// API stage (pure): a failed call (status, the API's message, its Retry-After) → an error the
// pages show as it is, with what the user can do about it. Nothing is swallowed.

export class ApiFailure extends Error {
  constructor(
    /** The HTTP status; 0 when no answer came (network down, server gone). */
    readonly status: number,
    /** The API's own message (`{"message": ...}`), or the body's text. */
    readonly detail: string,
    /** For a 429: when calls are accepted again (ms since the epoch). */
    readonly retryAt?: number,
  ) {
    super(`${status === 0 ? "No answer" : status}: ${detail}`);
    this.name = "ApiFailure";
  }
}

/** The message of an answer's body: the API answers `{"message": "..."}`; anything else is text. */
export function failureDetail(body: unknown, statusText: string): string {
  if (body !== null && typeof body === "object" && typeof (body as { message?: unknown }).message === "string") {
    return (body as { message: string }).message;
  }
  if (typeof body === "string" && body.trim() !== "") return body.trim().slice(0, 2000);
  return statusText || "no message";
}

export interface FailureText {
  title: string;
  detail: string;
  /** Whether signing in again may help (the token was refused). */
  signInAgain: boolean;
}

/** What a page shows for a failure; `now` turns a 429's retry time into seconds left. */
export function describeFailure(error: unknown, now: number): FailureText {
  if (!(error instanceof ApiFailure)) {
    return { title: "Something failed in the page", detail: error instanceof Error ? error.message : String(error), signInAgain: false };
  }
  const { status, detail } = error;
  if (status === 0) return { title: "The server did not answer", detail, signInAgain: false };
  if (status === 401) return { title: "The token was refused (401)", detail, signInAgain: true };
  if (status === 403) return { title: "Not allowed (403)", detail, signInAgain: false };
  if (status === 429) {
    const seconds = error.retryAt === undefined ? undefined : Math.max(0, Math.ceil((error.retryAt - now) / 1000));
    const when = seconds === undefined ? "later" : seconds === 0 ? "now" : `in ${seconds} s`;
    return { title: `Too many calls (429): retry ${when}`, detail, signInAgain: false };
  }
  if (status >= 500) return { title: `The server failed (${status})`, detail, signInAgain: false };
  return { title: `Refused (${status})`, detail, signInAgain: false };
}

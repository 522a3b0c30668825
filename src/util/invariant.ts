// Shared utility: marks conditions that only a bug can break. A failed invariant is an internal
// error, never a user error: user errors are collected into the GraphQL `errors` array instead.

export class InvariantError extends Error {
  constructor(message: string) {
    super(`internal error: ${message}`);
    this.name = "InvariantError";
  }
}

export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantError(message);
}

/** The `default` branch of an exhaustive switch over a tagged union. */
export function unreachable(value: never, what = "value"): never {
  throw new InvariantError(`unexpected ${what}: ${JSON.stringify(value)}`);
}

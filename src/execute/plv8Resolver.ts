// Execute stage, PLV8 binding: the backend-wide Resolver over PLV8's SPI. The only module that
// touches the `plv8` global. `resolve` and `stats` are what the bundle entry exports; `resolve`
// answers every error it can as a GraphQL error (the SQL function has no error handler of its own).

import { errorAnswer } from "./errorAnswer";
import { Resolver, type PreparedStatement, type SyncDatabase } from "./Resolver";

interface Plv8Plan {
  execute(params: unknown[]): Record<string, unknown>[];
  free(): void;
}

declare const plv8: {
  prepare(sql: string, typeNames?: string[]): Plv8Plan;
  subtransaction<T>(work: () => T): T;
};

const database: SyncDatabase = {
  // Every parameter travels as text, cast to its type inside the statement (an enum's label is
  // bound as the enum: see renderSql's bindTypeName).
  prepare: (sql, types) => plv8.prepare(sql, [...types]),
  execute: (plan: PreparedStatement, params) => (plan as Plv8Plan).execute(params),
  atomically: (work) => plv8.subtransaction(work),
};

let resolver: Resolver | null = null;

/**
 * `variables` is JSON text (from jsonb): converted by PLV8, an integer past 2^53 would lose digits.
 * `role` and `searchPath`: the caller's, as graphql._resolve_text reads them, or null (read by
 * the resolver then).
 */
export function resolve(
  query: string,
  variables: string | null,
  operationName: string | null,
  _extensions: unknown,
  role: string | null = null,
  searchPath: string | null = null,
): string {
  try {
    resolver ??= new Resolver(database);
    return resolver.resolve(query, variables, operationName, role === null || searchPath === null ? null : { role, path: searchPath });
  } catch (e) {
    // Each statement ran in a subtransaction of its own (PLV8 runs every SPI call in one), and a
    // request of several ran them all in one more: a failed statement has left nothing behind.
    return errorAnswer(e);
  }
}

/** Cache counters, e.g. for a test that checks a repeated query skips compilation. */
export function stats(): Record<string, unknown> {
  return { ...(resolver?.stats ?? {}) };
}

// Execute stage, PLV8 binding: the backend-wide Resolver over PLV8's SPI. The only module that
// touches the `plv8` global. `resolve` and `stats` are what the bundle entry exports.

import { Resolver, type PreparedStatement, type SyncDatabase } from "./Resolver";

interface Plv8Plan {
  execute(params: unknown[]): Record<string, unknown>[];
  free(): void;
}

declare const plv8: {
  prepare(sql: string, typeNames?: string[]): Plv8Plan;
};

const database: SyncDatabase = {
  // Every parameter travels as text and is cast to its type inside the statement.
  prepare: (sql, paramCount) => plv8.prepare(sql, new Array<string>(paramCount).fill("text")),
  execute: (plan: PreparedStatement, params) => (plan as Plv8Plan).execute(params),
};

let resolver: Resolver | null = null;

/** `variables` is JSON text (from jsonb): converted by PLV8, an integer past 2^53 would lose digits. */
export function resolve(query: string, variables: string | null, operationName: string | null, _extensions: unknown): string {
  resolver ??= new Resolver(database);
  return resolver.resolve(query, variables, operationName);
}

/** Cache counters, e.g. for a test that checks a repeated query skips compilation. */
export function stats(): Record<string, unknown> {
  return { ...(resolver?.stats ?? {}) };
}

// Bundle entry: what the PLV8 wrapper functions call. Input: the arguments of
// graphql.resolve; output: the response as JSON text (PostgreSQL parses it once into jsonb).
import { resolve, stats as resolverStats } from "./execute/plv8Resolver";

declare const __PG_GRAPHQL_VERSION__: string;

export const version: string = typeof __PG_GRAPHQL_VERSION__ === "string" ? __PG_GRAPHQL_VERSION__ : "development";

export { resolve };

/** Figures a test or an operator can read through `graphql._bundle_info()`. */
export function stats(): Record<string, unknown> {
  return { version, ...resolverStats() };
}

// Execute stage (server side): a request's identity and GraphQL payload → the one statement and
// parameters that run it. Role, claims and search path are set with set_config(..., true) in a
// materialized CTE that the resolve call reads from, so they are in force before resolve runs
// and end with the statement's own transaction. The answer comes from graphql._resolve_text,
// graphql.resolve's answer as JSON text: the server only forwards it, so no jsonb parse and print.
import type { JWTPayload } from "jose";
import { claimSettings, type ClaimSettings } from "./claimSettings";

export interface GraphQLPayload {
  query: string;
  /** The variables' JSON text exactly as the client sent it: parsing it into JS numbers and
   * writing it again would lose digits past 2^53 and of long decimals. */
  variables: string | null;
  operationName: string | null;
}

// Claim names that are not valid setting names (e.g. URLs used as namespaced claims) are only
// visible through request.jwt.claims; the others also as request.jwt.claim.<name> (claimSettings).
export const resolveStatementName = "pg_graphql_resolve";
export const resolveSql = `with settings as materialized (
  select set_config('role', $1, true) as role,
         set_config('request.jwt.claims', $2, true) as claims,
         (select count(set_config('request.jwt.claim.' || c.name, c.value, true))
            from unnest($3::text[], $4::text[]) as c(name, value)) as claim_count,
         set_config('search_path', (select string_agg(quote_ident(s), ', ') from unnest($5::text[]) as s), true) as search_path
)
select graphql._resolve_text($6, coalesce($7::jsonb, '{}'::jsonb), $8) as body
  from settings`;

// Identities are remembered with their claims, so the same claims object comes back request after
// request: its JSON text and its settings are worked out once.
const claimsParams = new WeakMap<JWTPayload, { text: string; settings: ClaimSettings }>();

function claimsOf(claims: JWTPayload): { text: string; settings: ClaimSettings } {
  let known = claimsParams.get(claims);
  if (known === undefined) claimsParams.set(claims, (known = { text: JSON.stringify(claims), settings: claimSettings(claims) }));
  return known;
}

export function resolveParams(
  role: string,
  claims: JWTPayload,
  schemas: string[],
  payload: GraphQLPayload,
): unknown[] {
  const { text, settings } = claimsOf(claims);
  return [
    role,
    text,
    settings.names,
    settings.values,
    schemas,
    payload.query,
    payload.variables,
    payload.operationName,
  ];
}

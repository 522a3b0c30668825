// Execute stage (server side): a request's identity and GraphQL payload → the one statement and
// parameters that run it. Role, claims and search path are set with set_config(..., true) in a
// materialized CTE that the resolve call reads from, so they are in force before resolve runs
// and end with the statement's own transaction. The answer comes from graphql._resolve_text,
// graphql.resolve's answer as JSON text: the server only forwards it, so no jsonb parse and print.
import type { JWTPayload } from "jose";

export interface GraphQLPayload {
  query: string;
  /** The variables' JSON text exactly as the client sent it: parsing it into JS numbers and
   * writing it again would lose digits past 2^53 and of long decimals. */
  variables: string | null;
  operationName: string | null;
}

// Claim names that are not valid setting names (e.g. URLs used as namespaced claims) are only
// visible through request.jwt.claims.
export const resolveStatementName = "pg_graphql_resolve";
export const resolveSql = `with settings as materialized (
  select set_config('role', $1, true) as role,
         set_config('request.jwt.claims', $2, true) as claims,
         (select count(set_config('request.jwt.claim.' || c.key,
                                  case jsonb_typeof(c.value) when 'string' then c.value #>> '{}' else c.value::text end,
                                  true))
            from jsonb_each($2::jsonb) as c
           where c.key ~ '^[A-Za-z_][A-Za-z0-9_]*$') as claim_count,
         set_config('search_path', (select string_agg(quote_ident(s), ', ') from unnest($3::text[]) as s), true) as search_path
)
select graphql._resolve_text($4, coalesce($5::jsonb, '{}'::jsonb), $6) as body
  from settings`;

// Identities are remembered with their claims, so the same claims object comes back request after
// request: its JSON text is written once.
const claimsTexts = new WeakMap<JWTPayload, string>();

function claimsText(claims: JWTPayload): string {
  let text = claimsTexts.get(claims);
  if (text === undefined) claimsTexts.set(claims, (text = JSON.stringify(claims)));
  return text;
}

export function resolveParams(
  role: string,
  claims: JWTPayload,
  schemas: string[],
  payload: GraphQLPayload,
): unknown[] {
  return [
    role,
    claimsText(claims),
    schemas,
    payload.query,
    payload.variables,
    payload.operationName,
  ];
}

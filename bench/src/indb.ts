// Bench stage: in-database runs. Input: a bench query's SQL or GraphQL text. Output: pgbench
// scripts and single calls over pg, both wrapped in the same per-transaction role switch the
// HTTP engines use, so the floor and graphql.resolve pay for identity alike.
import type pg from "pg";

export const benchClaims = JSON.stringify({ role: "authenticated", sub: "00000000-0000-0000-0000-000000000001", aud: "authenticated" });

function dollarQuote(text: string, tag: string): string {
  if (text.includes(`$${tag}$`)) throw new Error(`text contains the quoting tag $${tag}$`);
  return `$${tag}$${text}$${tag}$`;
}

const prologue = [
  "begin;",
  "set local role authenticated;",
  `select set_config('request.jwt.claims', ${dollarQuote(benchClaims, "claims")}, true);`,
];

/** A pgbench script (one statement per line) around the hand-written SQL of a bench query. */
export function sqlScript(sql: string): string {
  return [...prologue, `${sql.replace(/\s*\n\s*/g, " ")};`, "commit;", ""].join("\n");
}

/**
 * A pgbench script around one `graphql.resolve` call with the query text inlined; `searchPath`
 * (a schema name) chooses the schema the API is built from; `variablesSql`, an SQL expression of
 * type jsonb, gives the call its variables; `fn` is the function called.
 */
export function resolveScript(
  graphql: string,
  searchPath?: string,
  variablesSql?: string,
  fn: "graphql.resolve" | "graphql._resolve_text" = "graphql.resolve",
): string {
  const text = graphql.replace(/\s*\n\s*/g, " ");
  const path = searchPath === undefined ? [] : [`set local search_path = ${searchPath};`];
  const variables = variablesSql === undefined ? "" : `, ${variablesSql.replace(/\s*\n\s*/g, " ")}`;
  return [...prologue, ...path, `select ${fn}(${dollarQuote(text, "gql")}${variables});`, "commit;", ""].join("\n");
}

async function asAuthenticated<T>(client: pg.Client, run: () => Promise<T>): Promise<T> {
  await client.query("begin");
  try {
    await client.query("set local role authenticated");
    await client.query("select set_config('request.jwt.claims', $1, true)", [benchClaims]);
    const out = await run();
    await client.query("commit");
    return out;
  } catch (e) {
    await client.query("rollback");
    throw e;
  }
}

/** The hand-written SQL's answer as parsed JSON (the reference every engine must match). */
export async function sqlAnswer(client: pg.Client, sql: string): Promise<unknown> {
  return asAuthenticated(client, async () => {
    const { rows } = await client.query<{ result: string | null }>(sql);
    return rows[0]?.result == null ? null : JSON.parse(rows[0].result);
  });
}

/**
 * Two pgbench scripts that return a fixed answer text, one as text and one cast to jsonb, with no
 * other work: their difference is what returning that answer as jsonb costs (parsing it, and
 * printing it back for the client). A volatile condition keeps the planner from casting the
 * constant once when it plans the statement.
 */
export function answerScripts(answer: string): { text: string; jsonb: string } {
  const value = `(case when random() >= 0 then ${dollarQuote(answer, "answer")} end)`;
  return { text: sqlScript(`select ${value}::text`), jsonb: sqlScript(`select ${value}::jsonb`) };
}

/** One `graphql._resolve_text` call: graphql.resolve's answer as the text it is cast from. */
export async function resolveText(client: pg.Client, graphql: string): Promise<string> {
  return asAuthenticated(client, async () => {
    const { rows } = await client.query<{ body: string }>("select graphql._resolve_text($1) as body", [graphql]);
    return rows[0]!.body;
  });
}

/** One `graphql.resolve` call, its response parsed. */
export async function resolveCall(client: pg.Client, graphql: string): Promise<unknown> {
  return asAuthenticated(client, async () => {
    const { rows } = await client.query<{ body: string }>("select graphql.resolve($1)::text as body", [graphql]);
    return JSON.parse(rows[0]!.body);
  });
}

/** One statement as the API role, with parameters: its jsonb `result` column, parsed. */
export async function jsonbAnswer(client: pg.Client, sql: string, params: unknown[] = []): Promise<unknown> {
  return asAuthenticated(client, async () => (await client.query<{ result: unknown }>(sql, params)).rows[0]!.result);
}

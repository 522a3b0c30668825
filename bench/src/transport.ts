// Bench stage: requests. Input: an engine and a bench query (or raw GraphQL). Output: the
// request body each engine expects, and single requests for preparation, answer checks and
// statement counts (timed load goes through load.ts instead).
import type pg from "pg";
import type { Engine, HttpEngine } from "./engines";
import { resolveCall, sqlAnswer } from "./indb";
import type { BenchQuery, Dialect, Prepared } from "./queries";
import type { Json } from "./canonical";

export function requestBody(engine: HttpEngine, q: BenchQuery, prepared: Prepared | undefined): string {
  if (engine.dialect === "floor") return JSON.stringify({ query: q.name });
  if (!prepared) throw new Error(`${engine.label} has not been prepared`);
  return JSON.stringify({ query: q.graphql(engine.dialect, prepared) });
}

export async function postJson(engine: HttpEngine, body: string): Promise<Json> {
  const res = await fetch(engine.url, { method: "POST", headers: { "content-type": "application/json", ...engine.headers }, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${engine.label} answered HTTP ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as Json;
}

/** Sends GraphQL to an engine that speaks it (over HTTP, or graphql.resolve over pg). */
export async function sendGraphql(engine: Engine, client: pg.Client, query: string): Promise<Json> {
  switch (engine.kind) {
    case "http":
      return postJson(engine, JSON.stringify({ query }));
    case "pgbench":
      return (await resolveCall(client, query)) as Json;
    default:
      throw new Error(`unknown engine kind ${JSON.stringify(engine satisfies never)}`);
  }
}

/** The `data` of a response, or an error carrying the engine's own messages. */
export function dataOf(engineLabel: string, response: Json): Json {
  if (typeof response !== "object" || response === null || Array.isArray(response)) {
    throw new Error(`${engineLabel} answered ${JSON.stringify(response).slice(0, 300)}`);
  }
  const errors = response.errors;
  if (Array.isArray(errors) && errors.length > 0) throw new Error(`${engineLabel} answered errors: ${JSON.stringify(errors).slice(0, 500)}`);
  return response.data ?? null;
}

/** One request of a bench query through an engine; returns its GraphQL data (or SQL answer). */
export async function runOnce(engine: Engine, client: pg.Client, q: BenchQuery, prepared: Prepared | undefined): Promise<Json> {
  switch (engine.kind) {
    case "http":
      return dataOf(engine.label, await postJson(engine, requestBody(engine, q, prepared)));
    case "pgbench":
      if (engine.dialect === "floor") return { result: (await sqlAnswer(client, q.sql)) as Json };
      if (!prepared) throw new Error(`${engine.label} has not been prepared`);
      return dataOf(engine.label, await sendGraphql(engine, client, q.graphql(engine.dialect, prepared)));
    default:
      throw new Error(`unknown engine kind ${JSON.stringify(engine satisfies never)}`);
  }
}

export type { Dialect };

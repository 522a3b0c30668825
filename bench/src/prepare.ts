// Bench stage: preparation. Input: an engine that speaks GraphQL. Output: the identifiers its
// queries need (the target post's node id, the cursor that ends page 49), read from the engine.
import type pg from "pg";
import type { Engine } from "./engines";
import type { Json } from "./canonical";
import { dataOf, sendGraphql } from "./transport";
import { nodeIdQuery, pageQuery, targetPage, type Dialect, type Prepared } from "./queries";

function dig(value: Json, path: string[]): Json {
  let v: Json = value;
  for (const key of path) {
    if (Array.isArray(v)) v = v[Number(key)] ?? null;
    else if (typeof v === "object" && v !== null) v = v[key] ?? null;
    else return null;
  }
  return v;
}

export async function prepareEngine(engine: Engine, dialect: Dialect, client: pg.Client): Promise<Prepared> {
  const idData = dataOf(engine.label, await sendGraphql(engine, client, nodeIdQuery(dialect)));
  const nodeId = dialect === "pg_graphql" ? dig(idData, ["result", "edges", "0", "node", "nodeId"]) : dig(idData, ["result", "nodeId"]);
  if (typeof nodeId !== "string") throw new Error(`${engine.label} gave no node id: ${JSON.stringify(idData)}`);
  let cursor: string | null = null;
  for (let page = 1; page < targetPage; page++) {
    const data = dataOf(engine.label, await sendGraphql(engine, client, pageQuery(dialect, cursor)));
    const end = dig(data, ["result", "pageInfo", "endCursor"]);
    if (typeof end !== "string") throw new Error(`${engine.label} gave no endCursor on page ${page}: ${JSON.stringify(data)}`);
    cursor = end;
  }
  return { nodeId, page49Cursor: cursor! };
}

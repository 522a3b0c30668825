// Plan stage: a nodeId (base64 of the JSON array [schema, table, ...primary key]) → the table it
// names and its key values as typed parameters.

import type { Table } from "../catalog/model";
import type { ApiSchema } from "../schema/apiSchema";
import { param, type ParamNode } from "../sql/ast";
import { decodeBase64Bytes, utf8Decode } from "../util/base64";
import { UserError } from "../document/UserError";
import { keyItemText, parseKeyArray, type KeyItem } from "./parseKeyArray";
import { sqlTypeOf } from "./valueParams";

export interface DecodedNodeId {
  schema: string;
  table: string;
  keys: KeyItem[];
}

/** pg_graphql's decoding steps, each with its own error number. */
export function decodeNodeId(nodeId: string): DecodedNodeId {
  const invalid = (n: number) => new UserError(`Invalid value passed to nodeId argument. Error ${n}`);
  const bytes = decodeBase64Bytes(nodeId);
  if (bytes === null) throw invalid(2);
  const text = utf8Decode(bytes);
  if (text === null) throw invalid(3);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid(4);
  }
  if (!Array.isArray(parsed)) throw invalid(10);
  if (parsed.length < 3) throw invalid(5);
  if (typeof parsed[0] !== "string") throw invalid(6);
  if (typeof parsed[1] !== "string") throw invalid(7);
  // Keys keep their exact number texts (a bigint past 2^53 would lose digits as a JS number).
  const keys = parseKeyArray(text)!.slice(2);
  return { schema: parsed[0], table: parsed[1], keys };
}

/** Does the id name `table`? */
export function nodeIdNames(table: Table, id: DecodedNodeId): boolean {
  return id.schema === table.schema && id.table === table.name;
}

/** Key values of `table` from an id that names it. */
export function nodeIdKeyParams(api: ApiSchema, table: Table, id: DecodedNodeId): ParamNode[] {
  if (!nodeIdNames(table, id)) throw new UserError("nodeId belongs to a different collection");
  if (id.keys.length !== table.primaryKey.length) {
    throw new UserError(`Primary key column count mismatch. Expected ${table.primaryKey.length}, provided ${id.keys.length}`);
  }
  return table.primaryKey.map((name, i) => {
    const column = table.columns.find((c) => c.name === name)!;
    return param(keyItemText(id.keys[i] ?? null), sqlTypeOf(api.catalog, column.typeOid));
  });
}

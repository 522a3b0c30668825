// Plan stage: a nodeId (base64 of the JSON array [schema, table, ...primary key]) → the table it
// names and its key values as typed parameters.

import type { Table } from "../catalog/model";
import type { ApiSchema } from "../schema/apiSchema";
import { param, type ParamNode } from "../sql/ast";
import { decodeBase64 } from "../util/base64";
import { UserError } from "../document/UserError";
import { keyItemText, parseKeyArray, type KeyItem } from "./parseKeyArray";
import { sqlTypeOf } from "./valueParams";

export interface DecodedNodeId {
  schema: string;
  table: string;
  keys: KeyItem[];
}

export function decodeNodeId(nodeId: string): DecodedNodeId {
  const text = decodeBase64(nodeId);
  const value = text === null || text === "" ? null : parseKeyArray(text);
  if (!value || value.length < 3 || typeof value[0] !== "string" || typeof value[1] !== "string") {
    throw new UserError("Invalid value passed to nodeId argument. Error 4");
  }
  return { schema: value[0], table: value[1], keys: value.slice(2) };
}

/** Key values of `table` from a decoded id, or null when the id names another table. */
export function nodeIdKeyParams(api: ApiSchema, table: Table, id: DecodedNodeId): ParamNode[] | null {
  if (id.schema !== table.schema || id.table !== table.name) return null;
  if (id.keys.length !== table.primaryKey.length) throw new UserError("Invalid value passed to nodeId argument. Error 4");
  return table.primaryKey.map((name, i) => {
    const column = table.columns.find((c) => c.name === name)!;
    return param(keyItemText(id.keys[i] ?? null), sqlTypeOf(api.catalog, column.typeOid));
  });
}

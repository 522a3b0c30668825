// Plan stage: a nodeId (base64 of the JSON array [schema, table, ...primary key]) → the table it
// names and its key values as typed parameters.

import type { Table } from "../catalog/model";
import type { ApiSchema } from "../schema/apiSchema";
import { param, type ParamNode } from "../sql/ast";
import { decodeBase64 } from "../util/base64";
import { UserError } from "../document/UserError";
import { sqlTypeOf } from "./sqlValues";

export interface DecodedNodeId {
  schema: string;
  table: string;
  keys: unknown[];
}

export function decodeNodeId(nodeId: string): DecodedNodeId {
  const text = decodeBase64(nodeId);
  let value: unknown = null;
  try {
    value = text === null || text === "" ? null : JSON.parse(text);
  } catch {
    value = null;
  }
  if (!Array.isArray(value) || value.length < 3 || typeof value[0] !== "string" || typeof value[1] !== "string") {
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
    const v = id.keys[i];
    const t = v === null || v === undefined ? null : typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
    return param(t, sqlTypeOf(api.catalog, column.typeOid));
  });
}

// Plan stage: an OperationPlan → its shape (a text that is equal for two plans exactly when they
// render to the same SQL) and its bound parameters in a fixed walk order. The execute stage keys
// its SQL cache by the shape and fills cached statements from the parameters.

import type { ParamNode } from "../sql/ast";
import type { OperationPlan } from "./types";

export interface PlanShape {
  shape: string;
  params: ParamNode[];
}

type RelationLike = { from: { oid: number }; to: { oid: number }; fromColumns: readonly string[]; toColumns: readonly string[] };

function relationKey(r: RelationLike): string {
  return "rel:" + r.from.oid + ":" + r.to.oid + ":" + JSON.stringify(r.fromColumns) + JSON.stringify(r.toColumns);
}

/** Catalog objects are named by identity: they hold no parameters and are large. */
const CATALOG_KEYS: Record<string, (v: unknown) => string> = {
  table: (v) => "table:" + (v as { oid: number }).oid,
  fn: (v) => "fn:" + (v as { oid: number }).oid,
  relation: (v) => relationKey(v as RelationLike),
  // The relationships leading to a related column an order names.
  via: (v) => "via:" + (v as RelationLike[]).map(relationKey).join("/"),
  // An introspection field (GraphQL AST nodes) is fixed by the query text the cache is keyed by.
  field: () => "field",
};

export function planShape(plan: OperationPlan): PlanShape {
  const params: ParamNode[] = [];
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== "object") {
      parts.push(JSON.stringify(value) ?? "undefined");
      return;
    }
    if (Array.isArray(value)) {
      parts.push("[");
      for (const v of value) walk(v);
      parts.push("]");
      return;
    }
    const obj = value as Record<string, unknown>;
    if (obj["kind"] === "param") {
      params.push(obj as unknown as ParamNode);
      // The value travels as a parameter; only its type is part of the SQL text.
      parts.push("$" + JSON.stringify(obj["type"]));
      return;
    }
    parts.push("{");
    for (const [k, v] of Object.entries(obj)) {
      parts.push(k + "=");
      const named = CATALOG_KEYS[k];
      if (named && v !== null && typeof v === "object") parts.push(named(v));
      else walk(v);
    }
    parts.push("}");
  };
  walk(plan);
  return { shape: parts.join(""), params };
}

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
const CATALOG_KEYS = new Map<string, (v: unknown) => string>([
  ["table", (v) => "table:" + (v as { oid: number }).oid],
  ["fn", (v) => "fn:" + (v as { oid: number }).oid],
  ["relation", (v) => relationKey(v as RelationLike)],
  // The relationships leading to a related column an order names.
  ["via", (v) => "via:" + (v as RelationLike[]).map(relationKey).join("/")],
  // An introspection field (GraphQL AST nodes) is fixed by the query text the cache is keyed by.
  ["field", () => "field"],
]);

export function planShape(plan: OperationPlan): PlanShape {
  const params: ParamNode[] = [];
  // Runs for every request whose variables were not seen before. JSON.stringify walks the tree in
  // the engine's own code, in the order a for-in walk would (a walk written in JavaScript took
  // most of such a request's time in the database's engine); the replacer takes out what the
  // text must not hold: parameter values and catalog objects.
  const shape = JSON.stringify(plan, (key: string, value: unknown): unknown => {
    if (value === null || typeof value !== "object") return value;
    if ((value as { kind?: unknown }).kind === "param") {
      params.push(value as ParamNode);
      // The value travels as a parameter; only its type is part of the SQL text.
      return { $: (value as ParamNode).type };
    }
    const named = CATALOG_KEYS.get(key);
    return named === undefined ? value : named(value);
  });
  return { shape, params };
}

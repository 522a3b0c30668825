// Plan stage, ordering by related columns (opt-in): an orderBy entry's value for a to-one
// relationship (`{author: {name: AscNullsLast}}`, nested to any depth) → the order item of the
// one related column it names, with the relationships that lead to it.

import { GraphQLInputObjectType, getNamedType, type GraphQLInputType } from "graphql";
import { UserError } from "../document/UserError";
import { inputResolutionOf, type Relation } from "../schema/resolution";
import type { Coerced } from "./coerceInput";
import type { OrderPlan } from "./types";

type Directions = Readonly<Record<string, Pick<OrderPlan, "direction" | "nulls">>>;

export function relatedOrder(relation: Relation, name: string, value: Coerced, type: GraphQLInputType, directions: Directions, via: Relation[] = []): OrderPlan {
  const path = [...via, relation];
  const named = getNamedType(type);
  const entries = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.entries(value) : [];
  if (entries.length !== 1 || !(named instanceof GraphQLInputObjectType)) {
    throw new UserError(`An orderBy entry for the relationship "${name}" must name exactly one field of ${named.name}`);
  }
  const [key, v] = entries[0]!;
  const field = named.getFields()[key]!;
  const res = inputResolutionOf(field);
  if (res?.kind === "orderByRelation") return relatedOrder(res.relation, key, v, field.type, directions, path);
  const dir = typeof v === "string" ? directions[v] : undefined;
  if (res?.kind !== "orderByColumn" || dir === undefined) {
    throw new UserError(`An orderBy entry for the relationship "${name}" must name exactly one field of ${named.name}`);
  }
  return { column: res.column.name, ...dir, via: path };
}

// Plan stage, the field walk: the selections on an object type → one plan per selected field,
// `__typename` answered with the type's name, a field the type lacks refused in the caller's words.

import type { GraphQLField, GraphQLObjectType, SelectionSetNode } from "graphql";
import { collectFields, type CollectedField, type TypeMatcher } from "../document/collectFields";
import type { UserError } from "../document/UserError";
import { resolutionOf, type Resolution } from "../schema/resolution";
import type { PlanContext } from "./context";

/** `__typename`, known while planning: every object plan may hold it. */
export interface TypenamePlan {
  kind: "typename";
  key: string;
  value: string;
}

/** A selected field with its definition and what it resolves to. */
export interface ResolvedField {
  field: CollectedField;
  def: GraphQLField<unknown, unknown>;
  resolution: Resolution;
}

export interface FieldWalk<T> {
  /** Which fragment type conditions apply; the type's own name when left out. */
  matches?: TypeMatcher;
  /** The error for a field the type does not have (pg_graphql words it differently per place). */
  unknown: (name: string) => UserError;
  /** Answers a field before it is looked up (the root's introspection fields), or undefined. */
  before?: (field: CollectedField) => T | undefined;
}

export function walkFields<T>(
  ctx: PlanContext,
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
  walk: FieldWalk<T>,
  plan: (field: ResolvedField) => T,
): (T | TypenamePlan)[] {
  const matches = walk.matches ?? ((condition: string) => condition === type.name);
  return collectFields(selectionSets, matches, ctx).map((field): T | TypenamePlan => {
    if (field.name === "__typename") return { kind: "typename", key: field.responseKey, value: type.name };
    const early = walk.before?.(field);
    if (early !== undefined) return early;
    const def: GraphQLField<unknown, unknown> | undefined = type.getFields()[field.name];
    const resolution = def ? resolutionOf(def) : undefined;
    if (!def || !resolution) throw walk.unknown(field.name);
    return plan({ field, def, resolution });
  });
}

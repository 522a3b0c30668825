// Plan stage, upserts (opt-in): the `onConflict` argument of an insert field → the ON CONFLICT
// clause's plan: the arbiter constraint, the columns taken from the proposed row, the filter on
// the existing one.

import { GraphQLEnumType, GraphQLInputObjectType, getNamedType, type GraphQLField } from "graphql";
import type { Table } from "../catalog/model";
import type { InputValue } from "../document/inputValue";
import { UserError } from "../document/UserError";
import { invariant } from "../util/invariant";
import { coerceInput, invalid, type Coerced } from "./coerceInput";
import { argDef } from "./context";
import type { PlanContext } from "./context";
import { planFilter } from "./planFilter";
import type { OnConflictPlan } from "./types";

/** The database name an enum value of the API stands for (a constraint, a column). */
function enumValue(type: GraphQLEnumType, name: Coerced): string {
  const value = typeof name === "string" ? type.getValue(name)?.value : undefined;
  invariant(typeof value === "string", "a checked enum value names what it stands for");
  return value;
}

/** Null when the field has no `onConflict` argument or it is null: a plain insert. */
export function planOnConflict(ctx: PlanContext, table: Table, def: GraphQLField<unknown, unknown>, args: Map<string, InputValue>): OnConflictPlan | null {
  if (!args.has("onConflict") || !def.args.some((a) => a.name === "onConflict")) return null;
  const arg = argDef(def, "onConflict");
  const value = coerceInput(args.get("onConflict"), arg.type) as { [key: string]: Coerced } | null;
  if (value === null) return null;
  const type = getNamedType(arg.type) as GraphQLInputObjectType;
  const fields = type.getFields();
  // Input coercion checks the values given; these two must be given.
  if (value["constraint"] === undefined || value["updateFields"] === undefined) throw invalid("NonNull");
  const constraint = enumValue(getNamedType(fields["constraint"]!.type) as GraphQLEnumType, value["constraint"]!);
  const updateType = getNamedType(fields["updateFields"]!.type) as GraphQLEnumType;
  const update = [...new Set(((value["updateFields"] as Coerced[] | null) ?? []).map((v) => enumValue(updateType, v)))];
  const planned = value["filter"] == null ? null : planFilter(ctx, table, value["filter"], fields["filter"]!.type);
  const filter = planned !== null && !(planned.kind === "and" && planned.items.length === 0) ? planned : null;
  if (update.length === 0 && filter !== null) {
    throw new UserError(`The filter of ${type.name} applies to the records it updates: updateFields is empty`);
  }
  return { constraint, update, filter };
}

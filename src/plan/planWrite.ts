// Plan stage: an insert/update/delete root field (arguments + selections on its response type)
// → a write plan: checked values as typed parameters, the filter, atMost, and what to return.

import { GraphQLObjectType, getNamedType, isInputObjectType, valueFromAST, type GraphQLField } from "graphql";
import type { Table } from "../catalog/model";
import type { CollectedField } from "../document/collectFields";
import type { InputValue } from "../document/inputValue";
import { UserError } from "../document/UserError";
import { inputResolutionOf } from "../schema/resolution";
import { param, pgType } from "../sql/ast";
import { coerceInput, type Coerced } from "./coerceInput";
import { argDef, type PlanContext } from "./context";
import { planFilter } from "./planFilter";
import { planNode } from "./planNode";
import { checkLength } from "./checkLength";
import { enumLabels, sqlTypeOf, valueParam } from "./valueParams";
import { givesRelated, planNestedInsert } from "./planNestedInsert";
import { planOnConflict } from "./planUpsert";
import type { OnConflictPlan, RootFieldPlan, WritePlan, WriteResultFieldPlan } from "./types";
import { walkFields } from "./walkFields";

type Obj = { [key: string]: Coerced };

export function planWrite(
  ctx: PlanContext,
  kind: "insert" | "update" | "delete",
  table: Table,
  f: CollectedField,
  def: GraphQLField<unknown, unknown>,
  args: Map<string, InputValue>,
): RootFieldPlan {
  let write: WritePlan;
  switch (kind) {
    case "insert":
      write = planInsert(ctx, table, def, args, planOnConflict(ctx, table, def, args));
      break;
    case "update": {
      const setArg = argDef(def, "set");
      const set = coerceInput(args.has("set") ? args.get("set") : null, setArg.type) as Obj;
      const setType = getNamedType(setArg.type);
      const fields = isInputObjectType(setType) ? setType.getFields() : {};
      const assignments = Object.entries(set).map(([name, value]) => {
        const res = inputResolutionOf(fields[name]!);
        if (res?.kind !== "updateColumn") throw new UserError(`Input for type ${getNamedType(setArg.type).name} contains extra keys ["${name}"]`);
        checkLength(value, res.column);
        return { column: res.column.name, value: valueParam(value, sqlTypeOf(ctx.api.catalog, res.column.typeOid), enumLabels(fields[name]!.type)) };
      });
      if (assignments.length === 0) throw new UserError("At least one mapping must be provided to set argument");
      write = { kind: "update", table, set: assignments, filter: filterArg(ctx, table, def, args), atMost: atMostArg(def, args) };
      break;
    }
    case "delete":
      write = { kind: "delete", table, filter: filterArg(ctx, table, def, args), atMost: atMostArg(def, args) };
      break;
  }
  return { kind: "write", key: f.responseKey, write, fields: resultFields(ctx, def, table, f) };
}

function planInsert(
  ctx: PlanContext,
  table: Table,
  def: GraphQLField<unknown, unknown>,
  args: Map<string, InputValue>,
  onConflict: OnConflictPlan | null,
): WritePlan {
  const objectsArg = argDef(def, "objects");
  const objects = (coerceInput(args.has("objects") ? args.get("objects") : null, objectsArg.type) as Obj[] | null) ?? [];
  if (objects.length === 0) throw new UserError("At least one record must be provided to objects");
  const inputType = getNamedType(objectsArg.type);
  if (!isInputObjectType(inputType)) throw new UserError(`Invalid input for ${inputType.name} type`);
  if (givesRelated(inputType, objects)) {
    if (onConflict !== null) throw new UserError("onConflict cannot be combined with related records inserted along");
    return planNestedInsert(ctx, table, inputType, objects);
  }
  const fields = inputType.getFields();
  // Columns any object sets, in table order; an object leaving one out gets its default.
  const used = new Set<string>();
  for (const o of objects) for (const k of Object.keys(o)) used.add(k);
  const columns: { field: string; column: string; typeOid: number }[] = [];
  for (const [name, field] of Object.entries(fields)) {
    const res = inputResolutionOf(field);
    if (used.has(name) && res?.kind === "insertColumn") {
      columns.push({ field: name, column: res.column.name, typeOid: res.column.typeOid });
      for (const o of objects) if (name in o) checkLength(o[name]!, res.column);
    }
  }
  const rows = objects.map((o) =>
    columns.map((c) => (c.field in o ? valueParam(o[c.field]!, sqlTypeOf(ctx.api.catalog, c.typeOid), enumLabels(fields[c.field]!.type)) : null)),
  );
  return { kind: "insert", table, columns: columns.map((c) => c.column), rows, ...(onConflict !== null ? { onConflict } : {}) };
}

function filterArg(ctx: PlanContext, table: Table, def: GraphQLField<unknown, unknown>, args: Map<string, InputValue>) {
  if (!args.has("filter")) return null;
  const a = argDef(def, "filter");
  return planFilter(ctx, table, coerceInput(args.get("filter"), a.type), a.type);
}

/** `atMost` defaults to 1 through the argument's declared default. */
function atMostArg(def: GraphQLField<unknown, unknown>, args: Map<string, InputValue>) {
  const a = argDef(def, "atMost");
  const given = args.has("atMost") ? coerceInput(args.get("atMost"), a.type) : null;
  const fallback = a.astNode?.defaultValue ? valueFromAST(a.astNode.defaultValue, a.type) : a.defaultValue;
  const value = given ?? (typeof fallback === "number" ? fallback : 1);
  return param(String(value), pgType("int4"));
}

function resultFields(ctx: PlanContext, def: GraphQLField<unknown, unknown>, table: Table, f: CollectedField): WriteResultFieldPlan[] {
  const type = getNamedType(def.type) as GraphQLObjectType;
  const unknown = (name: string) => new UserError(`Unknown field "${name}" on type ${type.name}`);
  return walkFields(ctx, type, f.selectionSets, { unknown }, (r): WriteResultFieldPlan => {
    switch (r.resolution.kind) {
      case "affectedCount":
        return { kind: "affectedCount", key: r.field.responseKey };
      case "records": {
        const nodeType = getNamedType(r.def.type) as GraphQLObjectType;
        return { kind: "records", key: r.field.responseKey, node: planNode(ctx, nodeType, table, r.field.selectionSets, "plain") };
      }
      default:
        throw unknown(r.field.name);
    }
  });
}

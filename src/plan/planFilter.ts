// Plan stage: a checked `<Table>Filter` value → a FilterPlan tree (and/or/not, column operators,
// node id), each compared value a typed bound parameter.

import { GraphQLInputObjectType, getNamedType, type GraphQLInputType } from "graphql";
import type { Table } from "../catalog/model";
import { UserError } from "../document/UserError";
import { inputResolutionOf, type Relation, type RelationQuantifier } from "../schema/resolution";
import type { Coerced } from "./coerceInput";
import type { PlanContext } from "./context";
import { decodeNodeId, nodeIdKeyParams } from "./nodeId";
import { checkLength } from "./checkLength";
import { arrayType, enumLabels, filterOperand, sqlTypeOf, valueParam } from "./valueParams";
import type { CompareOp, FilterPlan } from "./types";

type Obj = { [key: string]: Coerced };

function isObj(v: Coerced): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** False for a filter that constrains nothing (`{}`, or only empty filters inside). */
function isCondition(plan: FilterPlan | null): plan is FilterPlan {
  return plan !== null && !(plan.kind === "and" && plan.items.length === 0);
}

export function planFilter(ctx: PlanContext, table: Table, value: Coerced, type: GraphQLInputType): FilterPlan | null {
  const named = getNamedType(type);
  if (!(named instanceof GraphQLInputObjectType) || !isObj(value)) return null;
  const items: FilterPlan[] = [];
  const fields = named.getFields();
  for (const [key, v] of Object.entries(value)) {
    const field = fields[key];
    const res = field ? inputResolutionOf(field) : undefined;
    if (!field || !res) continue;
    switch (res.kind) {
      case "filterAnd":
      case "filterOr": {
        // Empty filters constrain nothing: an empty list, and an empty element (skipped, in `or`
        // as in `and`).
        const parts = ((v as Coerced[] | null) ?? []).map((x) => planFilter(ctx, table, x, named)).filter(isCondition);
        if (parts.length > 0) items.push({ kind: res.kind === "filterAnd" ? "and" : "or", items: parts });
        break;
      }
      case "filterNot": {
        const inner = planFilter(ctx, table, v, named);
        if (isCondition(inner)) items.push({ kind: "not", item: inner });
        break;
      }
      case "columnFilter":
        if (isObj(v)) {
          for (const operand of Object.values(v)) checkLength(operand, res.column);
          items.push(...columnOps(ctx, res.column.name, res.column.typeOid, v, field.type));
        }
        break;
      case "nodeIdFilter":
        if (isObj(v) && typeof v["eq"] === "string") {
          items.push({ kind: "primaryKey", values: nodeIdKeyParams(ctx.api, table, decodeNodeId(v["eq"])) });
        }
        break;
      case "relationFilter":
        if (isObj(v)) items.push(...relatedFilters(ctx, res.relation, v, field.type));
        break;
      default:
        break;
    }
  }
  return { kind: "and", items };
}

/**
 * A relationship's filter (opt-in): the related row's own filter for a to-one relationship, a
 * condition per quantifier (`some`, `every`, `none`) for a to-many one.
 */
function relatedFilters(ctx: PlanContext, relation: Relation, value: Obj, type: GraphQLInputType): FilterPlan[] {
  const related = (quantifier: "toOne" | RelationQuantifier, v: Obj, t: GraphQLInputType): FilterPlan => ({
    kind: "related",
    relation,
    quantifier,
    filter: planFilter(ctx, relation.to, v, t) ?? { kind: "and", items: [] },
  });
  if (relation.cardinality === "toOne") return [related("toOne", value, type)];
  const named = getNamedType(type);
  if (!(named instanceof GraphQLInputObjectType)) return [];
  const fields = named.getFields();
  const out: FilterPlan[] = [];
  for (const [key, v] of Object.entries(value)) {
    const res = fields[key] ? inputResolutionOf(fields[key]!) : undefined;
    if (res?.kind === "relationQuantifier" && isObj(v)) out.push(related(res.quantifier, v, fields[key]!.type));
  }
  return out;
}

const LIST_OPS = new Set<CompareOp>(["contains", "containedBy", "overlaps"]);

function columnOps(ctx: PlanContext, column: string, typeOid: number, ops: Obj, filterType: GraphQLInputType): FilterPlan[] {
  const named = getNamedType(filterType);
  if (!(named instanceof GraphQLInputObjectType)) return [];
  const opFields = named.getFields();
  const colType = sqlTypeOf(ctx.api.catalog, typeOid);
  const out: FilterPlan[] = [];
  for (const [key, v] of Object.entries(ops)) {
    const field = opFields[key];
    const res = field ? inputResolutionOf(field) : undefined;
    const op = res?.kind === "filterOp" ? res.op : (key as CompareOp | "is");
    if (!field) continue;
    if (op === "is") {
      if (v === "NULL") out.push({ kind: "isNull", column, negated: false });
      else if (v === "NOT_NULL") out.push({ kind: "isNull", column, negated: true });
      else throw new UserError("Error transpiling Is filter value type");
      continue;
    }
    // A null operand is compared as SQL null (so matches nothing), as pg_graphql does.
    const labels = enumLabels(field.type);
    if (op === "in") {
      out.push({ kind: "compare", column, op, value: filterOperand(v, arrayType(colType), labels) });
    } else if (LIST_OPS.has(op) || colType.array) {
      out.push({ kind: "compare", column, op, value: valueParam(Array.isArray(v) ? v : [v], colType, labels) });
    } else {
      out.push({ kind: "compare", column, op, value: filterOperand(v, colType, labels) });
    }
  }
  return out;
}

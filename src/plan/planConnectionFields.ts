// Plan stage: the selections on a Connection type (edges, pageInfo, totalCount, aggregate) → the
// connection's field plans, nodes planned on the connection's table.

import { getNamedType, type GraphQLObjectType, type SelectionSetNode } from "graphql";
import type { Table } from "../catalog/model";
import { UserError } from "../document/UserError";
import type { PlanContext } from "./context";
import { isTextScalar } from "./outputKind";
import { planNode } from "./planNode";
import type { AggregateFieldPlan, ConnectionFieldPlan, EdgeFieldPlan, OutputKind, PageInfoFieldPlan } from "./types";
import { walkFields, type ResolvedField } from "./walkFields";

const unknownInConnection = (): UserError => new UserError("unknown field in connection");

/** The object type a field of the connection's types leads to. */
function objectTypeOf(r: ResolvedField): GraphQLObjectType {
  return getNamedType(r.def.type) as GraphQLObjectType;
}

export function planConnectionFields(
  ctx: PlanContext,
  type: GraphQLObjectType,
  table: Table,
  selectionSets: readonly SelectionSetNode[],
): ConnectionFieldPlan[] {
  return walkFields(ctx, type, selectionSets, { unknown: unknownInConnection }, (r): ConnectionFieldPlan => {
    const key = r.field.responseKey;
    switch (r.resolution.kind) {
      case "totalCount":
        return { kind: "totalCount", key };
      case "pageInfo":
        return { kind: "pageInfo", key, fields: planPageInfo(ctx, objectTypeOf(r), r.field.selectionSets) };
      case "edges":
        return { kind: "edges", key, fields: planEdges(ctx, objectTypeOf(r), table, r.field.selectionSets) };
      case "aggregate":
        return { kind: "aggregate", key, fields: planAggregate(ctx, objectTypeOf(r), r.field.selectionSets) };
      default:
        throw unknownInConnection();
    }
  });
}

function planPageInfo(ctx: PlanContext, type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): PageInfoFieldPlan[] {
  return walkFields(ctx, type, selectionSets, { unknown: unknownInConnection }, (r): PageInfoFieldPlan => {
    if (r.resolution.kind !== "pageInfoField") throw unknownInConnection();
    return { kind: r.resolution.field, key: r.field.responseKey };
  });
}

function planEdges(ctx: PlanContext, type: GraphQLObjectType, table: Table, selectionSets: readonly SelectionSetNode[]): EdgeFieldPlan[] {
  return walkFields(ctx, type, selectionSets, { unknown: unknownInConnection }, (r): EdgeFieldPlan => {
    switch (r.resolution.kind) {
      case "cursor":
        return { kind: "cursor", key: r.field.responseKey };
      case "edgeNode":
        return { kind: "node", key: r.field.responseKey, node: planNode(ctx, objectTypeOf(r), table, r.field.selectionSets, "quoted") };
      default:
        throw unknownInConnection();
    }
  });
}

type AggregateColumnPlan = Extract<AggregateFieldPlan, { kind: "op" }>["fields"][number];

function planAggregate(ctx: PlanContext, type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): AggregateFieldPlan[] {
  const unknown = (name: string) => new UserError(`Unknown field "${name}" on type ${type.name}`);
  return walkFields(ctx, type, selectionSets, { unknown }, (r): AggregateFieldPlan => {
    const key = r.field.responseKey;
    if (r.resolution.kind === "aggregateCount") return { kind: "count", key };
    if (r.resolution.kind !== "aggregateOp") throw unknown(r.field.name);
    const opType = objectTypeOf(r);
    const unknownColumn = (name: string) => new UserError(`Unknown field "${name}" on type ${opType.name}`);
    const fields = walkFields(ctx, opType, r.field.selectionSets, { unknown: unknownColumn }, (c): AggregateColumnPlan => {
      if (c.resolution.kind !== "aggregateColumn") throw unknownColumn(c.field.name);
      const output: OutputKind = isTextScalar(getNamedType(c.def.type).name) ? { kind: "text" } : { kind: "json" };
      return { kind: "column", key: c.field.responseKey, column: c.resolution.column.name, output };
    });
    return { kind: "op", key, op: r.resolution.op, fields };
  });
}

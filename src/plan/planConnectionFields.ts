// Plan stage: the selections on a Connection type (edges, pageInfo, totalCount, aggregate) → the
// connection's field plans, nodes planned on the connection's table.

import { getNamedType, type GraphQLObjectType, type SelectionSetNode } from "graphql";
import type { Table } from "../catalog/model";
import { UserError } from "../document/UserError";
import type { PlanContext } from "./context";
import { planNode } from "./planNode";
import { sqlTypeOf } from "./valueParams";
import type { AggregateFieldPlan, ConnectionFieldPlan, EdgeFieldPlan, OutputKind, PageInfoFieldPlan } from "./types";
import { walkFields, type ResolvedField } from "./walkFields";

const unknownInConnection = (): UserError => new UserError("unknown field in connection");

/** The connection type has an `aggregate` field only when the table's directive enables it. */
const unknownOnConnection = (name: string): UserError =>
  name === "aggregate" ? new UserError("enable the aggregate directive to use aggregates") : unknownInConnection();

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
  return walkFields(ctx, type, selectionSets, { unknown: unknownOnConnection }, (r): ConnectionFieldPlan => {
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

const NUMBER_SCALARS = new Set(["Int", "Float", "BigInt", "BigFloat"]);
const FLOAT_TYPES = new Set(["float4", "float8"]);

/**
 * Numeric aggregates are JSON numbers: numeric results keep every digit; float results stay as
 * PostgreSQL prints floats. Averages read their column as numeric.
 */
function aggregateOutput(op: string, scalar: string, sqlType: string): { output: OutputKind; numericInput: boolean } {
  if (!NUMBER_SCALARS.has(scalar)) return { output: { kind: "json" }, numericInput: false };
  if (op === "avg") return { output: { kind: "decimal" }, numericInput: true };
  return { output: FLOAT_TYPES.has(sqlType) ? { kind: "json" } : { kind: "decimal" }, numericInput: false };
}

function planAggregate(ctx: PlanContext, type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): AggregateFieldPlan[] {
  const unknown = (name: string) => new UserError(`Unknown field "${name}" selected on type "${type.name}"`);
  return walkFields(ctx, type, selectionSets, { unknown }, (r): AggregateFieldPlan => {
    const key = r.field.responseKey;
    if (r.resolution.kind === "aggregateCount") return { kind: "count", key };
    if (r.resolution.kind !== "aggregateOp") throw unknown(r.field.name);
    const op = r.resolution.op;
    const opType = objectTypeOf(r);
    const unknownColumn = (name: string) => new UserError(`Unknown or invalid field "${name}" selected on type "${opType.name}"`);
    const fields = walkFields(ctx, opType, r.field.selectionSets, { unknown: unknownColumn }, (c): AggregateColumnPlan => {
      if (c.resolution.kind !== "aggregateColumn") throw unknownColumn(c.field.name);
      const column = c.resolution.column;
      const sqlType = sqlTypeOf(ctx.api.catalog, column.typeOid).name;
      return { kind: "column", key: c.field.responseKey, column: column.name, ...aggregateOutput(op, getNamedType(c.def.type).name, sqlType) };
    });
    return { kind: "op", key, op, fields };
  });
}

// Plan stage: the selections on a table's node type → a NodePlan (columns, node id, relations,
// computed fields), recursing into related nodes and connections.

import { GraphQLObjectType, getNamedType, type SelectionSetNode } from "graphql";
import type { PgFunction, Table } from "../catalog/model";
import { UserError } from "../document/UserError";
import type { FunctionReturn, Relation } from "../schema/resolution";
import { unreachable } from "../util/invariant";
import { readArguments, type FieldArgs, type PlanContext } from "./context";
import { outputKindOf } from "./outputKind";
import { planConnection } from "./planConnection";
import type { ConnectionSource, NodeFieldPlan, NodePlan } from "./types";
import { walkFields, type ResolvedField } from "./walkFields";

/** pg_graphql words an unknown node field differently under a connection and at the root. */
export type UnknownFieldStyle = "quoted" | "plain";

export function unknownFieldError(name: string, typeName: string, style: UnknownFieldStyle): UserError {
  return style === "quoted"
    ? new UserError(`Unknown field '${name}' on type '${typeName}'`)
    : new UserError(`Unknown field "${name}" on type ${typeName}`);
}

export function planNode(
  ctx: PlanContext,
  type: GraphQLObjectType,
  table: Table,
  selectionSets: readonly SelectionSetNode[],
  style: UnknownFieldStyle,
): NodePlan {
  const interfaces = new Set(type.getInterfaces().map((i) => i.name));
  const unknown = (name: string) => unknownFieldError(name, type.name, style);
  const matches = (cond: string) => cond === type.name || interfaces.has(cond);
  const fields = walkFields(ctx, type, selectionSets, { matches, unknown }, (r) => planNodeField(ctx, table, r, unknown));
  return { table, fields };
}

function planNodeField(ctx: PlanContext, table: Table, r: ResolvedField, unknown: (name: string) => UserError): NodeFieldPlan {
  const { field: f, def, resolution } = r;
  const key = f.responseKey;
  const args = readArguments(f, def, ctx.scope);
  const childType = getNamedType(def.type);
  const objectType = (): GraphQLObjectType => {
    if (!(childType instanceof GraphQLObjectType)) throw unknown(f.name);
    return childType;
  };
  // A one-to-many relationship, whether tagged as a relation or as a connection.
  const toMany = (relation: Relation): NodeFieldPlan => ({
    kind: "toMany",
    key,
    relation,
    connection: planConnection(ctx, objectType(), relation.to, f.selectionSets, args, def, { kind: "table" }),
  });
  switch (resolution.kind) {
    case "column":
      return { kind: "column", key, column: resolution.column.name, output: outputKindOf(def.type) };
    case "nodeId":
      return { kind: "nodeId", key, table };
    case "relation": {
      const rel = resolution.relation;
      if (rel.cardinality === "toMany") return toMany(rel);
      return { kind: "toOne", key, relation: rel, node: planNode(ctx, objectType(), rel.to, f.selectionSets, "quoted") };
    }
    case "connection":
      // A one-to-many relationship, tagged as a connection that carries its relation.
      if (!resolution.relation) throw unknown(f.name);
      return toMany(resolution.relation);
    case "computed":
      return planComputed(ctx, r, args, resolution.fn, resolution.returns, objectType);
    default:
      throw unknown(f.name);
  }
}

function planComputed(
  ctx: PlanContext,
  r: ResolvedField,
  args: FieldArgs,
  fn: PgFunction,
  returns: FunctionReturn,
  objectType: () => GraphQLObjectType,
): NodeFieldPlan {
  const { field: f, def } = r;
  switch (returns.kind) {
    case "scalar":
      return { kind: "computedScalar", key: f.responseKey, fn, output: outputKindOf(def.type) };
    case "node":
      return { kind: "computedRow", key: f.responseKey, fn, node: planNode(ctx, objectType(), returns.table, f.selectionSets, "quoted") };
    case "connection": {
      const source: ConnectionSource = { kind: "function", fn, args: [], passParentRow: true };
      return { kind: "computedConnection", key: f.responseKey, fn, connection: planConnection(ctx, objectType(), returns.table, f.selectionSets, args, def, source) };
    }
    default:
      return unreachable(returns, "function return");
  }
}

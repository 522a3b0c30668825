// Plan stage: the selections on a table's node type → a NodePlan (columns, node id, relations,
// computed fields), recursing into related nodes and connections.

import { GraphQLObjectType, getNamedType, type SelectionSetNode } from "graphql";
import type { Table } from "../catalog/model";
import { collectFields } from "../document/collectFields";
import { UserError } from "../document/UserError";
import { resolutionOf, type Relation } from "../schema/resolution";
import { unreachable } from "../util/invariant";
import { fieldOf, readArguments, type PlanContext } from "./context";
import { planConnection } from "./planConnection";
import { outputKindOf } from "./outputKind";
import type { NodeFieldPlan, NodePlan } from "./types";

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
  const fields = collectFields(selectionSets, (cond) => cond === type.name || interfaces.has(cond), ctx);
  const out: NodeFieldPlan[] = [];
  for (const f of fields) {
    if (f.name === "__typename") {
      out.push({ kind: "typename", key: f.responseKey, value: type.name });
      continue;
    }
    const def = fieldOf(type, f.name);
    const resolution = def ? resolutionOf(def) : undefined;
    if (!def || !resolution) throw unknownFieldError(f.name, type.name, style);
    const args = readArguments(f, def, ctx.scope);
    const childType = getNamedType(def.type);
    // A one-to-many relationship, whether tagged as a relation or as a connection.
    const toMany = (relation: Relation, connectionType: GraphQLObjectType): NodeFieldPlan => ({
      kind: "toMany",
      key: f.responseKey,
      relation,
      connection: planConnection(ctx, connectionType, relation.to, f.selectionSets, args, def, { kind: "table" }),
    });
    switch (resolution.kind) {
      case "column":
        out.push({ kind: "column", key: f.responseKey, column: resolution.column.name, output: outputKindOf(def.type) });
        break;
      case "nodeId":
        out.push({ kind: "nodeId", key: f.responseKey, table });
        break;
      case "relation": {
        const rel = resolution.relation;
        if (!(childType instanceof GraphQLObjectType)) throw unknownFieldError(f.name, type.name, style);
        if (rel.cardinality === "toOne") {
          out.push({ kind: "toOne", key: f.responseKey, relation: rel, node: planNode(ctx, childType, rel.to, f.selectionSets, "quoted") });
        } else {
          out.push(toMany(rel, childType));
        }
        break;
      }
      case "connection": {
        // A one-to-many relationship, tagged as a connection that carries its relation.
        const rel = resolution.relation;
        if (!rel || !(childType instanceof GraphQLObjectType)) throw unknownFieldError(f.name, type.name, style);
        out.push(toMany(rel, childType));
        break;
      }
      case "computed": {
        const r = resolution.returns;
        switch (r.kind) {
          case "scalar":
            out.push({ kind: "computedScalar", key: f.responseKey, fn: resolution.fn, output: outputKindOf(def.type) });
            break;
          case "node":
            if (!(childType instanceof GraphQLObjectType)) throw unknownFieldError(f.name, type.name, style);
            out.push({ kind: "computedRow", key: f.responseKey, fn: resolution.fn, node: planNode(ctx, childType, r.table, f.selectionSets, "quoted") });
            break;
          case "connection":
            if (!(childType instanceof GraphQLObjectType)) throw unknownFieldError(f.name, type.name, style);
            out.push({
              kind: "computedConnection",
              key: f.responseKey,
              fn: resolution.fn,
              connection: planConnection(ctx, childType, r.table, f.selectionSets, args, def, {
                kind: "function",
                fn: resolution.fn,
                args: [],
                passParentRow: true,
              }),
            });
            break;
          default:
            unreachable(r, "function return");
        }
        break;
      }
      default:
        throw unknownFieldError(f.name, type.name, style);
    }
  }
  return { table, fields: out };
}

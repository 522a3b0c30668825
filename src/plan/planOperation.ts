// Plan stage, entry: a prepared document + variables + the API schema → an OperationPlan with one
// entry per root field. User mistakes are thrown as UserError.

import { GraphQLNonNull, GraphQLObjectType, getNamedType, type GraphQLField } from "graphql";
import type { PgFunction, Table } from "../catalog/model";
import type { CollectedField } from "../document/collectFields";
import { VariableScope, type InputValue, type Variables } from "../document/inputValue";
import type { PreparedDocument } from "../document/prepareDocument";
import { UserError } from "../document/UserError";
import type { ApiSchema } from "../schema/apiSchema";
import { resolutionOf, typeSourceOf, type FunctionReturn } from "../schema/resolution";
import { param } from "../sql/ast";
import { unreachable } from "../util/invariant";
import { coerceInput, invalid } from "./coerceInput";
import { argDef, readArguments, type FieldArgs, type PlanContext } from "./context";
import { decodeNodeId, nodeIdKeyParams, nodeIdNames } from "./nodeId";
import { planConnection } from "./planConnection";
import { planNode } from "./planNode";
import { planWrite } from "./planWrite";
import { outputKindOf } from "./outputKind";
import { enumLabels, scalarText, sqlTypeOf } from "./valueParams";
import type { FunctionCallArg, OperationPlan, RootFieldPlan } from "./types";
import { walkFields, type ResolvedField } from "./walkFields";

const CONNECTION_ARGS = new Set(["first", "last", "before", "after", "offset", "filter", "orderBy"]);

export function planOperation(api: ApiSchema, doc: PreparedDocument, variables: Variables): OperationPlan {
  const scope = new VariableScope(doc.operation, variables);
  const ctx: PlanContext = { api, scope, fragments: doc.fragments };
  const isMutation = doc.operation.operation === "mutation";
  const rootType = isMutation ? api.graphql.getMutationType() : api.graphql.getQueryType();
  if (!rootType) throw new UserError(isMutation ? "Unknown type Mutation" : "Unknown type Query");
  const unknown = (name: string) => new UserError(`Unknown field "${name}" on type ${rootType.name}`);
  const before = (f: CollectedField): RootFieldPlan | undefined => {
    if ((f.name !== "__schema" && f.name !== "__type") || rootType.name !== "Query") return undefined;
    // Without introspection these are unknown, yet pg_graphql still answers the other fields.
    if (!api.introspection) return { kind: "error", key: f.responseKey, message: unknown(f.name).message };
    return { kind: "introspection", key: f.responseKey, field: f };
  };
  const fields = walkFields(ctx, rootType, [doc.operation.selectionSet], { unknown, before }, (r) => planRootField(ctx, r, unknown));
  return { kind: isMutation ? "mutation" : "query", fields };
}

function planRootField(ctx: PlanContext, r: ResolvedField, unknown: (name: string) => UserError): RootFieldPlan {
  const { field: f, def, resolution: res } = r;
  const key = f.responseKey;
  const args = readArguments(f, def, ctx.scope);
  const child = getNamedType(def.type);
  switch (res.kind) {
    case "connection":
      return {
        kind: "connection",
        key,
        connection: planConnection(ctx, child as GraphQLObjectType, res.table, f.selectionSets, args, def, { kind: "table" }),
      };
    case "byPk": {
      const nodeType = child as GraphQLObjectType;
      const values = byPkValues(ctx, nodeType, res.table, def, args);
      return { kind: "row", key, table: res.table, source: { kind: "primaryKey", values }, node: planNode(ctx, nodeType, res.table, f.selectionSets, "plain") };
    }
    case "nodeInterface":
      return planNodeLookup(ctx, f, def, args);
    case "function":
      return planFunction(ctx, r, args, res.fn, res.returns);
    case "insert":
    case "update":
    case "delete":
      return planWrite(ctx, res.kind, res.table, f, def, args);
    default:
      throw unknown(f.name);
  }
}

/** byPk arguments are the key columns under their API names. */
function byPkValues(ctx: PlanContext, nodeType: GraphQLObjectType, table: Table, def: GraphQLField<unknown, unknown>, args: Map<string, InputValue>) {
  const apiNameOf = new Map<string, string>();
  for (const field of Object.values(nodeType.getFields())) {
    const r = resolutionOf(field);
    if (r?.kind === "column") apiNameOf.set(r.column.name, field.name);
  }
  const missing = table.primaryKey.filter((c) => !args.has(apiNameOf.get(c) ?? c));
  if (missing.length > 0) throw new UserError(`Missing primary key column(s): ${missing.join(", ")}`);
  return table.primaryKey.map((c) => {
    const name = apiNameOf.get(c) ?? c;
    const a = argDef(def, name);
    const v = coerceInput(args.get(name), a.type);
    const column = table.columns.find((x) => x.name === c)!;
    return param(scalarText(v, enumLabels(a.type)), sqlTypeOf(ctx.api.catalog, column.typeOid));
  });
}

function planNodeLookup(ctx: PlanContext, f: CollectedField, def: GraphQLField<unknown, unknown>, args: Map<string, InputValue>): RootFieldPlan {
  const raw = coerceInput(args.has("nodeId") ? args.get("nodeId") : null, argDef(def, "nodeId").type);
  const id = decodeNodeId(String(raw));
  for (const type of Object.values(ctx.api.graphql.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType)) continue;
    const source = typeSourceOf(type);
    if (source?.kind !== "node") continue;
    if (source.table.primaryKey.length === 0 || !nodeIdNames(source.table, id)) continue;
    const values = nodeIdKeyParams(ctx.api, source.table, id);
    return {
      kind: "row",
      key: f.responseKey,
      table: source.table,
      source: { kind: "primaryKey", values },
      node: planNode(ctx, type, source.table, f.selectionSets, "plain"),
    };
  }
  throw new UserError("Collection referenced by nodeId did not match any known collection");
}

function functionArgs(ctx: PlanContext, fn: PgFunction, def: GraphQLField<unknown, unknown>, args: FieldArgs, isConnection: boolean): FunctionCallArg[] {
  // The API lists a function's arguments in declaration order (names possibly inflected),
  // followed by the connection arguments when it returns a connection.
  const apiArgs = def.args.filter((a) => !(isConnection && CONNECTION_ARGS.has(a.name)));
  const out: FunctionCallArg[] = [];
  fn.args.forEach((pgArg, i) => {
    const apiArg = apiArgs[i];
    if (pgArg.name === null || !apiArg) return;
    const type = sqlTypeOf(ctx.api.catalog, pgArg.typeOid);
    if (!args.has(apiArg.name)) {
      if (apiArg.type instanceof GraphQLNonNull) throw invalid("NonNull");
      // Named notation lets PostgreSQL apply its own defaults for what was left out.
      if (!pgArg.hasDefault) out.push({ name: pgArg.name, value: param(null, type) });
      return;
    }
    const v = coerceInput(args.get(apiArg.name), apiArg.type);
    out.push({ name: pgArg.name, value: param(scalarText(v, enumLabels(apiArg.type)), type) });
  });
  return out;
}

function planFunction(ctx: PlanContext, r: ResolvedField, args: FieldArgs, fn: PgFunction, returns: FunctionReturn): RootFieldPlan {
  const { field: f, def } = r;
  const child = getNamedType(def.type);
  switch (returns.kind) {
    case "scalar":
      return { kind: "scalarFunction", key: f.responseKey, fn, args: functionArgs(ctx, fn, def, args, false), output: outputKindOf(def.type) };
    case "node":
      return {
        kind: "row",
        key: f.responseKey,
        table: returns.table,
        source: { kind: "function", fn, args: functionArgs(ctx, fn, def, args, false) },
        node: planNode(ctx, child as GraphQLObjectType, returns.table, f.selectionSets, "plain"),
      };
    case "connection": {
      const connArgs = new Map([...args].filter(([k]) => CONNECTION_ARGS.has(k)));
      const fnArgs = new Map([...args].filter(([k]) => !CONNECTION_ARGS.has(k)));
      return {
        kind: "connection",
        key: f.responseKey,
        connection: planConnection(
          ctx,
          child as GraphQLObjectType,
          returns.table,
          f.selectionSets,
          connArgs,
          def,
          fn.volatility === "volatile"
            ? { kind: "calledOnce", fn, args: functionArgs(ctx, fn, def, fnArgs, true) }
            : { kind: "function", fn, args: functionArgs(ctx, fn, def, fnArgs, true), passParentRow: false },
        ),
      };
    }
    default:
      return unreachable(returns, "function return");
  }
}

// Schema stage, introspection: an ApiSchema + a root `__schema` / `__type` field → its JSON answer,
// the way pg_graphql gives it (its scalar descriptions, types in name order, only @include/@skip).

import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLUnionType,
  Kind,
  astFromValue,
  print,
  valueFromASTUntyped,
  type ArgumentNode,
  type DirectiveNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  type SelectionSetNode,
} from "graphql";
import { invariant, unreachable } from "../util/invariant";
import type { ApiSchema } from "./apiSchema";
import { printedDefaultOf } from "./resolution";
import { SCALAR_DESCRIPTIONS, type ScalarName } from "./scalars";

export interface IntrospectionContext {
  readonly variables: Readonly<Record<string, unknown>>;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What each introspection object is, so fields resolve against the right thing. */
type Meta =
  | { readonly kind: "__Schema"; readonly schema: GraphQLSchema }
  | { readonly kind: "__Type"; readonly type: GraphQLType }
  | { readonly kind: "__Field"; readonly field: GraphQLField<unknown, unknown> }
  | { readonly kind: "__InputValue"; readonly value: GraphQLArgument | GraphQLInputField }
  | { readonly kind: "__EnumValue"; readonly name: string; readonly description: string | null }
  | { readonly kind: "__Directive"; readonly directive: DirectiveInfo };

interface DirectiveInfo {
  readonly name: string;
  readonly description: string;
}

/** pg_graphql supports and lists only these two directives. */
const DIRECTIVES: readonly DirectiveInfo[] = [
  { name: "include", description: "This field or fragment will be included only when the `if` argument is true." },
  { name: "skip", description: "This field or fragment will be skipped when the `if` argument is true." },
];
const DIRECTIVE_LOCATIONS = ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"];

/** True when `__schema` / `__type` are fields of Query for this schema (some schema opted in). */
export function introspectionEnabled(api: ApiSchema): boolean {
  return api.introspection !== null;
}

/**
 * Resolves one root `__schema` or `__type` field (aliases are the caller's business). Throws if
 * introspection is disabled: callers check introspectionEnabled() first and report the field as
 * unknown, as pg_graphql does.
 */
export function resolveIntrospectionField(api: ApiSchema, field: FieldNode, ctx: IntrospectionContext): Json {
  const schema = api.introspection;
  invariant(schema !== null, "introspection is disabled for this schema");
  switch (field.name.value) {
    case "__schema":
      return resolveObject({ kind: "__Schema", schema }, field.selectionSet, ctx, schema);
    case "__type": {
      const name = argumentValue(field, "name", ctx);
      const type = typeof name === "string" ? schema.getTypeMap()[name] : undefined;
      return type === undefined ? null : resolveObject({ kind: "__Type", type }, field.selectionSet, ctx, schema);
    }
    default:
      invariant(false, `not an introspection field: ${field.name.value}`);
  }
}

function argumentValue(
  node: { readonly arguments?: readonly ArgumentNode[] },
  name: string,
  ctx: IntrospectionContext,
): unknown {
  const arg = node.arguments?.find((a) => a.name.value === name);
  return arg === undefined ? undefined : valueFromASTUntyped(arg.value, ctx.variables as Record<string, unknown>);
}

function byName(a: GraphQLNamedType, b: GraphQLNamedType): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** `__schema { types }` by schema: the schema never changes, and each request would sort it again. */
const typesCache = new WeakMap<GraphQLSchema, readonly Meta[]>();

function schemaTypes(schema: GraphQLSchema): readonly Meta[] {
  let types = typesCache.get(schema);
  if (types === undefined) {
    types = Object.values(schema.getTypeMap())
      .sort(byName)
      .map((type) => ({ kind: "__Type", type }) as const);
    typesCache.set(schema, types);
  }
  return types;
}

function isIncluded(node: { readonly directives?: readonly DirectiveNode[] }, ctx: IntrospectionContext): boolean {
  for (const d of node.directives ?? []) {
    const value = argumentValue(d, "if", ctx);
    if (d.name.value === "skip" && value === true) return false;
    if (d.name.value === "include" && value === false) return false;
  }
  return true;
}

/** Fields of a selection set by response key, fragments expanded, in first-seen order. */
function collectFields(
  selectionSet: SelectionSetNode,
  typeName: string,
  ctx: IntrospectionContext,
  out: Map<string, FieldNode[]> = new Map(),
  visited: Set<string> = new Set(),
): Map<string, FieldNode[]> {
  for (const selection of selectionSet.selections) {
    if (!isIncluded(selection, ctx)) continue;
    switch (selection.kind) {
      case Kind.FIELD: {
        const key = selection.alias?.value ?? selection.name.value;
        const list = out.get(key) ?? [];
        list.push(selection);
        out.set(key, list);
        break;
      }
      case Kind.INLINE_FRAGMENT: {
        const cond = selection.typeCondition?.name.value;
        if (cond === undefined || cond === typeName) collectFields(selection.selectionSet, typeName, ctx, out, visited);
        break;
      }
      case Kind.FRAGMENT_SPREAD: {
        const name = selection.name.value;
        const fragment = ctx.fragments[name];
        if (fragment === undefined || visited.has(name)) break;
        visited.add(name);
        if (fragment.typeCondition.name.value === typeName) {
          collectFields(fragment.selectionSet, typeName, ctx, out, visited);
        }
        break;
      }
      default:
        return unreachable(selection, "selection");
    }
  }
  return out;
}

/** Several nodes for one response key merge their sub-selections. */
function mergedSelection(nodes: readonly FieldNode[]): SelectionSetNode | undefined {
  const sets = nodes.map((n) => n.selectionSet).filter((s): s is SelectionSetNode => s !== undefined);
  if (sets.length === 0) return undefined;
  if (sets.length === 1) return sets[0];
  return { kind: Kind.SELECTION_SET, selections: sets.flatMap((s) => s.selections) };
}

/** A selection set's fields for one meta type: response key, field name, merged sub-selection. */
type FieldPlan = readonly { readonly key: string; readonly name: string; readonly sub: SelectionSetNode | undefined }[];

/**
 * Plans per selection set and meta type, for one request: a full `__schema` walk visits the same
 * selection sets thousands of times.
 */
const planCache = new WeakMap<IntrospectionContext, Map<SelectionSetNode, Map<string, FieldPlan>>>();

function fieldPlan(selectionSet: SelectionSetNode, kind: string, ctx: IntrospectionContext): FieldPlan {
  let bySet = planCache.get(ctx);
  if (bySet === undefined) {
    bySet = new Map();
    planCache.set(ctx, bySet);
  }
  let byKind = bySet.get(selectionSet);
  if (byKind === undefined) {
    byKind = new Map();
    bySet.set(selectionSet, byKind);
  }
  let plan = byKind.get(kind);
  if (plan === undefined) {
    plan = [...collectFields(selectionSet, kind, ctx)].map(([key, nodes]) => ({
      key,
      name: nodes[0]!.name.value,
      sub: mergedSelection(nodes),
    }));
    byKind.set(kind, plan);
  }
  return plan;
}

function resolveObject(
  meta: Meta,
  selectionSet: SelectionSetNode | undefined,
  ctx: IntrospectionContext,
  schema: GraphQLSchema,
): Json {
  if (selectionSet === undefined) return null;
  const result: { [key: string]: Json } = {};
  for (const { key, name, sub } of fieldPlan(selectionSet, meta.kind, ctx)) {
    if (name === "__typename") {
      // pg_graphql answers `__typename` inside `__type` with the described type's own name.
      result[key] = meta.kind === "__Type" ? typeNameOf(meta.type) : meta.kind;
      continue;
    }
    const value = fieldValue(meta, name, schema);
    result[key] = toJson(value, sub, ctx, schema);
  }
  return result;
}

/** A resolved field: plain JSON, or introspection objects still to be selected from. */
type Value = Json | Meta | readonly Meta[];

function isMeta(v: unknown): v is Meta {
  return typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as { kind?: unknown }).kind === "string" &&
    String((v as { kind: string }).kind).startsWith("__");
}

function toJson(value: Value, sub: SelectionSetNode | undefined, ctx: IntrospectionContext, schema: GraphQLSchema): Json {
  if (Array.isArray(value)) {
    return value.map((v) => (isMeta(v) ? resolveObject(v, sub, ctx, schema) : (v as Json)));
  }
  if (isMeta(value)) return resolveObject(value, sub, ctx, schema);
  return value as Json;
}

function typeNameOf(type: GraphQLType): string | null {
  return type instanceof GraphQLNonNull || type instanceof GraphQLList ? null : type.name;
}

function typeKind(type: GraphQLType): string {
  if (type instanceof GraphQLNonNull) return "NON_NULL";
  if (type instanceof GraphQLList) return "LIST";
  if (type instanceof GraphQLScalarType) return "SCALAR";
  if (type instanceof GraphQLObjectType) return "OBJECT";
  if (type instanceof GraphQLInterfaceType) return "INTERFACE";
  if (type instanceof GraphQLUnionType) return "UNION";
  if (type instanceof GraphQLEnumType) return "ENUM";
  if (type instanceof GraphQLInputObjectType) return "INPUT_OBJECT";
  invariant(false, "unknown graphql-js type");
}

function typeDescription(type: GraphQLNamedType): string | null {
  if (type instanceof GraphQLScalarType && type.name in SCALAR_DESCRIPTIONS) {
    return SCALAR_DESCRIPTIONS[type.name as ScalarName];
  }
  return type.description ?? null;
}

function introspectedDefault(value: GraphQLArgument | GraphQLInputField): string | null {
  const printed = printedDefaultOf(value);
  if (printed !== undefined) return printed;
  if (value.defaultValue === undefined) return null;
  const ast = astFromValue(value.defaultValue, value.type);
  return ast === null || ast === undefined ? null : print(ast);
}

function fieldValue(meta: Meta, name: string, schema: GraphQLSchema): Value {
  switch (meta.kind) {
    case "__Schema":
      switch (name) {
        case "description":
          return null;
        case "types":
          return schemaTypes(schema);
        case "queryType":
          return { kind: "__Type", type: schema.getQueryType()! };
        case "mutationType": {
          const m = schema.getMutationType();
          return m ? { kind: "__Type", type: m } : null;
        }
        case "subscriptionType":
          return null;
        case "directives":
          return DIRECTIVES.map((directive) => ({ kind: "__Directive", directive }) as const);
        default:
          return null;
      }
    case "__Type":
      return typeField(meta.type, name, schema);
    case "__Field":
      switch (name) {
        case "args":
          return meta.field.args.map((value) => ({ kind: "__InputValue", value }) as const);
        case "type":
          return { kind: "__Type", type: meta.field.type };
        default:
          return memberField(name, meta.field.name, meta.field.description ?? null);
      }
    case "__InputValue":
      switch (name) {
        case "type":
          return { kind: "__Type", type: meta.value.type };
        case "defaultValue":
          return introspectedDefault(meta.value);
        default:
          return memberField(name, meta.value.name, meta.value.description ?? null);
      }
    case "__EnumValue":
      return memberField(name, meta.name, meta.description);
    case "__Directive":
      switch (name) {
        case "name":
          return meta.directive.name;
        case "description":
          return meta.directive.description;
        case "locations":
          return DIRECTIVE_LOCATIONS;
        case "isRepeatable":
          return false;
        case "args": {
          const directive = schema.getDirective(meta.directive.name);
          return (directive?.args ?? []).map((value) => ({ kind: "__InputValue", value }) as const);
        }
        default:
          return null;
      }
    default:
      return unreachable(meta, "meta");
  }
}

/** What fields, arguments and enum values all answer: their name and description; none is deprecated. */
function memberField(name: string, ownName: string, description: string | null): Value {
  switch (name) {
    case "name":
      return ownName;
    case "description":
      return description;
    case "isDeprecated":
      return false;
    default:
      return null;
  }
}

function typeField(type: GraphQLType, name: string, schema: GraphQLSchema): Value {
  const named = type instanceof GraphQLNonNull || type instanceof GraphQLList ? null : type;
  switch (name) {
    case "kind":
      return typeKind(type);
    case "name":
      return named?.name ?? null;
    case "description":
      return named === null ? null : typeDescription(named);
    case "specifiedByURL":
      return null;
    case "fields":
      if (named instanceof GraphQLObjectType || named instanceof GraphQLInterfaceType) {
        return Object.values(named.getFields()).map((field) => ({ kind: "__Field", field }) as const);
      }
      return null;
    case "interfaces":
      if (named instanceof GraphQLObjectType) {
        return named.getInterfaces().map((t) => ({ kind: "__Type", type: t }) as const);
      }
      // pg_graphql lists interfaces for object types only.
      return null;
    case "possibleTypes":
      if (named instanceof GraphQLInterfaceType || named instanceof GraphQLUnionType) {
        return [...schema.getPossibleTypes(named)]
          .sort(byName)
          .map((t) => ({ kind: "__Type", type: t }) as const);
      }
      return null;
    case "enumValues":
      if (named instanceof GraphQLEnumType) {
        return named.getValues().map((v) => ({ kind: "__EnumValue", name: v.name, description: v.description ?? null }) as const);
      }
      return null;
    case "inputFields":
      if (named instanceof GraphQLInputObjectType) {
        return Object.values(named.getFields()).map((value) => ({ kind: "__InputValue", value }) as const);
      }
      return null;
    case "ofType":
      if (type instanceof GraphQLNonNull || type instanceof GraphQLList) return { kind: "__Type", type: type.ofType };
      return null;
    case "isOneOf":
      return named instanceof GraphQLInputObjectType ? false : null;
    default:
      return null;
  }
}

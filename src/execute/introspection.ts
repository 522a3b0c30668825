// Execute stage, introspection: an ApiSchema + a root `__schema` / `__type` field → its JSON answer,
// the way pg_graphql gives it (its scalar descriptions, types in name order, only @include/@skip).
// Fields are collected and variables read by the document stage, as for every other field.

import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLUnionType,
  astFromValue,
  print,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  type SelectionSetNode,
} from "graphql";
import { collectFields, type CollectContext, type CollectedField } from "../document/collectFields";
import type { ApiSchema } from "../schema/apiSchema";
import { printedDefaultOf } from "../schema/resolution";
import { SCALAR_DESCRIPTIONS, type ScalarName } from "../schema/scalars";
import { invariant, unreachable } from "../util/invariant";

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

/** `__schema { description }`: the same text for every database, as pg_graphql gives it. */
const SCHEMA_DESCRIPTION = "Represents the GraphQL schema of the database";

/**
 * Resolves one root `__schema` or `__type` field (its key is the caller's business). The plan
 * stage makes these fields only where introspection is enabled, as pg_graphql does.
 */
export function resolveIntrospectionField(api: ApiSchema, field: CollectedField, ctx: CollectContext): Json {
  const schema = api.introspection;
  invariant(schema !== null, "introspection is disabled for this schema");
  switch (field.name) {
    case "__schema":
      return resolveObject({ kind: "__Schema", schema }, field.selectionSets, ctx, schema);
    case "__type": {
      const arg = field.node.arguments?.find((a) => a.name.value === "name");
      const name = arg === undefined ? undefined : ctx.scope.value(arg.value);
      const type = typeof name === "string" ? schema.getTypeMap()[name] : undefined;
      return type === undefined ? null : resolveObject({ kind: "__Type", type }, field.selectionSets, ctx, schema);
    }
    default:
      invariant(false, `not an introspection field: ${field.name}`);
  }
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

/** A selection's fields for one meta type: response key, field name, merged sub-selections. */
type FieldPlan = readonly { readonly key: string; readonly name: string; readonly sub: readonly SelectionSetNode[] }[];

/**
 * Plans per selection and meta type, for one request: a full `__schema` walk visits the same
 * selections thousands of times (each list of selection sets is made once, so it is the key).
 */
const planCache = new WeakMap<CollectContext, Map<readonly SelectionSetNode[], Map<string, FieldPlan>>>();

function fieldPlan(selectionSets: readonly SelectionSetNode[], kind: string, ctx: CollectContext): FieldPlan {
  let bySets = planCache.get(ctx);
  if (bySets === undefined) {
    bySets = new Map();
    planCache.set(ctx, bySets);
  }
  let byKind = bySets.get(selectionSets);
  if (byKind === undefined) {
    byKind = new Map();
    bySets.set(selectionSets, byKind);
  }
  let plan = byKind.get(kind);
  if (plan === undefined) {
    plan = collectFields(selectionSets, (c) => c === kind, ctx).map((f) => ({ key: f.responseKey, name: f.name, sub: f.selectionSets }));
    byKind.set(kind, plan);
  }
  return plan;
}

function resolveObject(meta: Meta, selectionSets: readonly SelectionSetNode[], ctx: CollectContext, schema: GraphQLSchema): Json {
  if (selectionSets.length === 0) return null;
  const result: { [key: string]: Json } = {};
  for (const { key, name, sub } of fieldPlan(selectionSets, meta.kind, ctx)) {
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

function toJson(value: Value, sub: readonly SelectionSetNode[], ctx: CollectContext, schema: GraphQLSchema): Json {
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
          return SCHEMA_DESCRIPTION;
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
      // pg_graphql answers an empty list for scalars, null for the other kinds.
      return named instanceof GraphQLScalarType ? [] : null;
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
      return named instanceof GraphQLScalarType ? [] : null;
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

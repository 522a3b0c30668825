// Plan stage: a GraphQL output type → how the SQL renders its value as JSON (OutputKind).

import { GraphQLEnumType, GraphQLList, GraphQLNonNull, getNamedType, type GraphQLOutputType, type GraphQLType } from "graphql";
import { typeSourceOf } from "../schema/resolution";
import type { OutputKind } from "./types";

/** Scalars whose values leave the database as JSON strings (exact digits, JSON as its text). */
const TEXT_SCALARS = new Set(["BigInt", "BigFloat", "JSON"]);

/** Int and Boolean come from int2, int4 and bool only (see the schema's scalar mapping). */
const TEXT_IS_JSON = new Set(["Int", "Boolean"]);

/** BigInt, BigFloat and JSON leave the database as strings; enums through their mappings. */
export function outputKindOf(type: GraphQLOutputType): OutputKind {
  let t: GraphQLType = type;
  if (t instanceof GraphQLNonNull) t = t.ofType;
  const isList = t instanceof GraphQLList;
  const named = getNamedType(type);
  if (TEXT_SCALARS.has(named.name)) return isList ? { kind: "textArray" } : { kind: "text" };
  if (TEXT_IS_JSON.has(named.name) && !isList) return { kind: "intOrBoolean" };
  if (named instanceof GraphQLEnumType && !isList) {
    const source = typeSourceOf(named);
    if (source?.kind === "enum") {
      const renamed = Object.entries(source.values).some(([name, label]) => name !== label);
      if (renamed) return { kind: "enum", mapping: Object.entries(source.values).map(([name, label]) => ({ label, name })) };
    }
  }
  return { kind: "json" };
}

// Plan stage: an input value + its GraphQL input type → the value checked against that type, or
// a user error in pg_graphql's words ("Invalid input for X type", "... contains extra keys").

import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  type GraphQLInputType,
} from "graphql";
import { EnumLiteral, isInputObject, LargeIntLiteral, type InputValue } from "../document/inputValue";
import { UserError } from "../document/UserError";

/** A checked value: enum values are their GraphQL names, lists are arrays, objects are records. */
export type Coerced = null | boolean | number | string | Coerced[] | { [key: string]: Coerced };

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

export function invalid(typeName: string): UserError {
  return new UserError(`Invalid input for ${typeName} type`);
}

/** Coerce a present value (callers drop absent ones first). */
export function coerceInput(value: InputValue, type: GraphQLInputType): Coerced {
  if (type instanceof GraphQLNonNull) {
    if (value === null || value === undefined) throw invalid("NonNull");
    return coerceInput(value, type.ofType);
  }
  if (value === null || value === undefined) return null;
  if (type instanceof GraphQLList) {
    // A single value where a list is expected is a list of one, as in GraphQL input coercion.
    const items = Array.isArray(value) ? (value as readonly InputValue[]) : [value];
    return items.map((v) => coerceInput(v, type.ofType));
  }
  if (type instanceof GraphQLEnumType) {
    const name = value instanceof EnumLiteral ? value.name : typeof value === "string" ? value : null;
    if (name === null || !type.getValue(name)) throw invalid(type.name);
    return name;
  }
  if (type instanceof GraphQLInputObjectType) {
    if (!isInputObject(value)) throw invalid(type.name);
    const fields = type.getFields();
    const extra = Object.keys(value).filter((k) => !(k in fields));
    if (extra.length > 0) {
      throw new UserError(`Input for type ${type.name} contains extra keys [${extra.map((k) => JSON.stringify(k)).join(", ")}]`);
    }
    const out: { [key: string]: Coerced } = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      out[k] = coerceInput(v, fields[k]!.type);
    }
    return out;
  }
  if (type instanceof GraphQLScalarType) return coerceScalar(value, type.name);
  throw invalid(String(type));
}

function coerceScalar(value: InputValue, name: string): Coerced {
  if (value instanceof LargeIntLiteral) return coerceLargeInt(value, name);
  switch (name) {
    case "Int":
      if (typeof value === "number" && Number.isInteger(value) && value >= INT_MIN && value <= INT_MAX) return value;
      throw invalid(name);
    case "Float":
      if (typeof value === "number") return value;
      throw invalid(name);
    case "Boolean":
      if (typeof value === "boolean") return value;
      throw invalid(name);
    case "BigInt":
      if (typeof value === "number" && Number.isInteger(value)) return String(value);
      if (typeof value === "string" && /^-?\d+$/.test(value)) return value;
      throw invalid(name);
    case "BigFloat":
      if (typeof value === "string") return value;
      throw new UserError("Invalid input for BigFloat type. String required");
    case "JSON":
      // JSON travels as its text, the way pg_graphql reads it.
      if (typeof value === "string") return value;
      throw invalid(name);
    default:
      // String, ID, UUID, Date, Time, Datetime, Cursor, Opaque: text on the wire.
      if (typeof value === "string") return value;
      if (name === "Opaque" && (typeof value === "number" || typeof value === "boolean")) return String(value);
      throw invalid(name);
  }
}

/** An integer literal too large for a JS number, checked as the number it stands for. */
function coerceLargeInt(value: LargeIntLiteral, name: string): Coerced {
  switch (name) {
    case "BigInt":
    case "Opaque":
      return value.text;
    case "Float":
      return Number(value.text);
    case "BigFloat":
      throw new UserError("Invalid input for BigFloat type. String required");
    default:
      throw invalid(name);
  }
}

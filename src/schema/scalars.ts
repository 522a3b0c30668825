// Schema stage, scalar mapping: PostgreSQL types → the API's scalar names, filters and descriptions.
// Input: a type oid and the catalog's types; output: a TypeShape the builder turns into graphql-js types.

import type { PgType } from "../catalog/model";
import { unreachable } from "../util/invariant";

export type ScalarName =
  | "Int"
  | "Float"
  | "String"
  | "Boolean"
  | "ID"
  | "BigInt"
  | "BigFloat"
  | "JSON"
  | "UUID"
  | "Date"
  | "Time"
  | "Datetime"
  | "Opaque"
  | "Cursor";

/** pg_graphql's descriptions of its scalars (String, Boolean, Int, Float and ID included). */
export const SCALAR_DESCRIPTIONS: Readonly<Record<ScalarName, string>> = {
  Int: "A scalar integer up to 32 bits",
  Float: "A scalar floating point value up to 32 bits",
  String: "A string",
  Boolean: "A value that is true or false",
  ID: "A globally unique identifier for a given record",
  BigInt: "An arbitrary size integer represented as a string",
  BigFloat: "A high precision floating point value represented as a string",
  JSON: "A Javascript Object Notation value serialized as a string",
  UUID: "A universally unique identifier",
  Date: "A date without time information",
  Time: "A time without date information",
  Datetime: "A date and time",
  Opaque: "Any type not handled by the type system",
  Cursor: "An opaque string using for tracking a position in results during pagination",
};

const BY_OID: ReadonlyMap<number, ScalarName> = new Map<number, ScalarName>([
  [16, "Boolean"],
  [20, "BigInt"],
  [21, "Int"],
  [23, "Int"],
  [700, "Float"],
  [701, "Float"],
  [1700, "BigFloat"],
  [25, "String"],
  [1043, "String"],
  [1042, "String"],
  [2950, "UUID"],
  [1082, "Date"],
  [1083, "Time"],
  [1114, "Datetime"],
  [1184, "Datetime"],
  [114, "JSON"],
  [3802, "JSON"],
]);

/** What a column/argument/return type becomes in the API. */
export type TypeShape =
  | { readonly kind: "scalar"; readonly scalar: ScalarName }
  | { readonly kind: "enum"; readonly type: Extract<PgType, { kind: "enum" }> }
  | { readonly kind: "list"; readonly element: TypeShape }
  /** Composite (row) types: tables' row types are handled by the caller, other composites are dropped. */
  | { readonly kind: "composite"; readonly type: Extract<PgType, { kind: "composite" }> }
  | { readonly kind: "unsupported"; readonly reason: "pseudo" | "nestedArray" };

export class TypeMapper {
  private readonly types: ReadonlyMap<number, PgType>;

  constructor(types: readonly PgType[]) {
    this.types = new Map(types.map((t) => [t.oid, t]));
  }

  get(oid: number): PgType | undefined {
    return this.types.get(oid);
  }

  shape(oid: number): TypeShape {
    const known = BY_OID.get(oid);
    if (known !== undefined) return { kind: "scalar", scalar: known };
    const t = this.types.get(oid);
    if (t === undefined) return { kind: "scalar", scalar: "Opaque" };
    switch (t.kind) {
      case "base":
        // citext is an extension type without a fixed oid: recognised by name.
        return { kind: "scalar", scalar: t.name === "citext" ? "String" : "Opaque" };
      case "enum":
        return t.exposed ? { kind: "enum", type: t } : { kind: "scalar", scalar: "Opaque" };
      case "array": {
        const element = this.shape(t.elementOid);
        if (element.kind === "list") return { kind: "unsupported", reason: "nestedArray" };
        return { kind: "list", element };
      }
      case "domain":
        return { kind: "scalar", scalar: "Opaque" };
      case "composite":
        return { kind: "composite", type: t };
      case "pseudo":
        return { kind: "unsupported", reason: "pseudo" };
      default:
        return unreachable(t, "type");
    }
  }
}

/** The operators of ordered scalars (numbers, dates and times). */
const ORDERED_OPS: readonly string[] = ["eq", "gt", "gte", "in", "is", "lt", "lte", "neq"];

/** Scalars that get a `<Scalar>Filter` input type, with their operators in pg_graphql's order. */
export const SCALAR_FILTER_OPS: ReadonlyArray<readonly [ScalarName, readonly string[]]> = [
  ["BigFloat", ORDERED_OPS],
  ["BigInt", ORDERED_OPS],
  ["Boolean", ["eq", "is"]],
  ["Date", ORDERED_OPS],
  ["Datetime", ORDERED_OPS],
  ["Float", ORDERED_OPS],
  ["ID", ["eq"]],
  ["Int", ORDERED_OPS],
  ["Opaque", ["eq", "is"]],
  [
    "String",
    ["eq", "gt", "gte", "ilike", "in", "iregex", "is", "like", "lt", "lte", "neq", "regex", "startsWith"],
  ],
  ["Time", ORDERED_OPS],
  ["UUID", ["eq", "in", "is", "neq"]],
];

/** Scalars whose arrays get a `<Scalar>ListFilter`. */
export const LIST_FILTER_SCALARS: readonly ScalarName[] = [
  "BigFloat",
  "BigInt",
  "Boolean",
  "Date",
  "Datetime",
  "Float",
  "Int",
  "String",
  "Time",
  "UUID",
];

export const LIST_FILTER_OPS: readonly string[] = ["containedBy", "contains", "eq", "overlaps", "is"];

export const ENUM_FILTER_OPS: readonly string[] = ["eq", "in", "is", "neq"];

// Plan stage: checked input values → typed bound parameters, and GraphQL output types → how the
// SQL renders them as JSON. Types come from the catalog by oid.

import { GraphQLEnumType, GraphQLList, GraphQLNonNull, getNamedType, type GraphQLOutputType, type GraphQLType } from "graphql";
import type { Catalog, PgType } from "../catalog/model";
import { typeSourceOf } from "../schema/resolution";
import { param, pgType, type ParamNode, type SqlType } from "../sql/ast";
import { UserError } from "../document/UserError";
import type { Coerced } from "./coerceInput";
import type { OutputKind } from "./types";

const typeIndexes = new WeakMap<Catalog, Map<number, PgType>>();

function typeIndex(catalog: Catalog): Map<number, PgType> {
  let index = typeIndexes.get(catalog);
  if (!index) {
    index = new Map(catalog.types.map((t) => [t.oid, t]));
    typeIndexes.set(catalog, index);
  }
  return index;
}

export function sqlTypeOf(catalog: Catalog, oid: number): SqlType {
  const t = typeIndex(catalog).get(oid);
  if (!t) return pgType("text");
  if (t.kind === "array") {
    const element = typeIndex(catalog).get(t.elementOid);
    if (!element) return pgType("text", true);
    return { schema: element.schema, name: element.name, array: true };
  }
  return { schema: t.schema, name: t.name, array: false };
}

export function elementType(t: SqlType): SqlType {
  return { ...t, array: false };
}

export function arrayType(t: SqlType): SqlType {
  return { ...t, array: true };
}

/** Enum values travel as their database labels; `values` maps GraphQL names to labels. */
export function enumLabels(type: GraphQLType): Readonly<Record<string, string>> | null {
  const named = getNamedType(type);
  if (!(named instanceof GraphQLEnumType)) return null;
  const source = typeSourceOf(named);
  return source?.kind === "enum" ? source.values : null;
}

export function scalarText(value: Coerced, labels: Readonly<Record<string, string>> | null): string | null {
  if (value === null) return null;
  if (typeof value === "string") return labels ? (labels[value] ?? value) : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return arrayLiteral(value, labels);
  return JSON.stringify(value);
}

/** PostgreSQL array input syntax; the text is data in a bound parameter, never SQL. */
export function arrayLiteral(values: readonly Coerced[], labels: Readonly<Record<string, string>> | null): string {
  const items = values.map((v) => {
    const t = scalarText(v, labels);
    if (t === null) return "NULL";
    return '"' + t.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
  });
  return "{" + items.join(",") + "}";
}

export function valueParam(value: Coerced, type: SqlType, labels: Readonly<Record<string, string>> | null): ParamNode {
  return param(scalarText(value, labels), type);
}

/** BigInt, BigFloat and JSON leave the database as strings; enums through their mappings. */
export function outputKindOf(type: GraphQLOutputType): OutputKind {
  let t: GraphQLType = type;
  if (t instanceof GraphQLNonNull) t = t.ofType;
  const isList = t instanceof GraphQLList;
  const named = getNamedType(type);
  if (named.name === "BigInt" || named.name === "BigFloat" || named.name === "JSON") {
    return isList ? { kind: "textArray" } : { kind: "text" };
  }
  if (named instanceof GraphQLEnumType && !isList) {
    const source = typeSourceOf(named);
    if (source?.kind === "enum") {
      const mapping = Object.entries(source.values)
        .filter(([name, label]) => name !== label)
        .map(([name, label]) => ({ label, name }));
      if (mapping.length > 0) return { kind: "enum", mapping: Object.entries(source.values).map(([name, label]) => ({ label, name })) };
    }
  }
  return { kind: "json" };
}

/** varchar(n) / char(n) columns: the declared length, from the catalog's type text. */
export function maxLengthOf(typeName: string): number | null {
  const m = /^(?:character varying|character|varchar|char|bpchar)\((\d+)\)/.exec(typeName);
  return m ? Number(m[1]) : null;
}

/** Strings longer than the column allows are rejected before reaching the database. */
export function checkLength(value: Coerced, typeName: string): void {
  const max = maxLengthOf(typeName);
  if (max === null) return;
  const values = Array.isArray(value) ? value : [value];
  for (const v of values) {
    if (typeof v === "string" && [...v].length > max) {
      throw new UserError(`Invalid input for String type. Maximum character length ${max}`);
    }
  }
}

// Plan stage: checked input values → typed bound parameters. Types come from the catalog by oid;
// enum values travel as their database labels.

import { GraphQLEnumType, getNamedType, type GraphQLType } from "graphql";
import type { Catalog, PgType } from "../catalog/model";
import { typeSourceOf } from "../schema/resolution";
import { param, pgType, type EnumLiteral, type ParamNode, type SqlType } from "../sql/ast";
import type { Coerced } from "./coerceInput";

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
  return t.kind === "enum" ? { schema: t.schema, name: t.name, array: false, enum: true } : { schema: t.schema, name: t.name, array: false };
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

/**
 * A filter's operand: an enum column's labels as a literal (see `EnumLiteral`), when every one is
 * given; any other value as a parameter (a null compares as SQL null, matching nothing).
 */
export function filterOperand(value: Coerced, type: SqlType, labels: Readonly<Record<string, string>> | null): ParamNode | EnumLiteral {
  const given = (v: Coerced) => typeof v === "string";
  if (type.enum === true && labels !== null && (type.array ? Array.isArray(value) && value.length > 0 && value.every(given) : given(value))) {
    // A list is a set to `= any(...)`: written once per set of labels, whatever the order given.
    const text = Array.isArray(value) ? arrayLiteral([...new Set(value as string[])].sort(), labels) : scalarText(value, labels)!;
    return { kind: "enumLiteral", text, type };
  }
  return valueParam(value, type, labels);
}

// Transpile stage, field values: a plan's output kinds and `__typename` fields → the JSON values
// (as text) the response is built from.

import type { OutputKind } from "../plan/types";
import { unreachable } from "../util/invariant";
import { binary, call, int, jsonNumberOrBool, jsonValue, param, pgType, type Expr, type JsonEntry, type JsonExpr } from "../sql/ast";
import { textType } from "./rowRef";

/** The JSON a field outputs: its SQL value converted as to_json converts it. */
export function outputValue(e: Expr, kind: OutputKind): JsonExpr {
  return kind.kind === "intOrBoolean" ? jsonNumberOrBool(e) : jsonValue(outputSqlValue(e, kind));
}

/** The SQL value whose to_json form a field outputs. */
function outputSqlValue(e: Expr, kind: Exclude<OutputKind, { kind: "intOrBoolean" }>): Expr {
  switch (kind.kind) {
    case "json":
      return e;
    case "text":
      return { kind: "cast", expr: e, type: textType };
    case "textArray":
      return { kind: "cast", expr: e, type: pgType("text", true) };
    case "decimal":
      return decimalValue({ kind: "cast", expr: e, type: pgType("numeric") });
    case "enum":
      return {
        kind: "case",
        whens: kind.mapping.map((m) => ({
          when: binary("=", { kind: "cast", expr: e, type: textType }, param(m.label, textType)),
          then: param(m.name, textType),
        })),
        else: { kind: "cast", expr: e, type: textType },
      };
    default:
      return unreachable(kind, "output kind");
  }
}

/**
 * A numeric as a 64-bit float prints it, every digit kept: trailing fractional zeros dropped down
 * to one (`2.50` → `2.5`, `2.000` → `2.0`); a number without fraction stays an integer.
 */
function decimalValue(n: Expr): Expr {
  const scale = (x: Expr) => call("scale", x);
  return {
    kind: "case",
    whens: [{ when: binary(">", scale(n), int(0)), then: call("round", n, call("greatest", scale(call("trim_scale", n)), int(1))) }],
    else: n,
  };
}

/** The one field every object plan may hold: `__typename`, known while planning. */
interface TypenameField {
  kind: "typename";
  key: string;
  value: string;
}

/**
 * A JSON object with one member per field: `__typename` members are the type's name as a
 * parameter, the others what `member` makes of them.
 */
export function objectOf<F extends { kind: string; key: string }>(
  fields: readonly F[],
  member: (field: Exclude<F, TypenameField>) => JsonExpr,
): JsonExpr {
  return { kind: "jsonObject", entries: fields.map((f) => entryOf(f, member)) };
}

function entryOf<F extends { kind: string; key: string }>(
  f: F,
  member: (field: Exclude<F, TypenameField>) => JsonExpr,
): JsonEntry {
  if (isTypename(f)) return { key: f.key, value: jsonValue(param(f.value, textType)) };
  return { key: f.key, value: member(f as Exclude<F, TypenameField>) };
}

function isTypename(f: { kind: string }): f is TypenameField {
  return f.kind === "typename";
}

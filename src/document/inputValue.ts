// Document stage: a GraphQL value literal + the request's variables → a plain input value.
// Variables missing from the request fall back to their declared default, else count as absent.

import { Kind, type OperationDefinitionNode, type ValueNode } from "graphql";

/** `undefined` means absent (not given), which pg_graphql treats differently from `null`. */
export type InputValue =
  | undefined
  | null
  | boolean
  | number
  | string
  | EnumLiteral
  | LargeIntLiteral
  | readonly InputValue[]
  | { readonly [key: string]: InputValue };

export type Variables = Readonly<Record<string, unknown>>;

/** An enum value written in the query; a variable holding an enum value is a plain string. */
export class EnumLiteral {
  constructor(readonly name: string) {}
}

/**
 * An integer literal past 2^53, kept as written: a JS number would silently lose digits of a
 * BigInt value. Only types that take such integers accept it.
 */
export class LargeIntLiteral {
  constructor(readonly text: string) {}
}

export function isInputObject(v: InputValue): v is { readonly [key: string]: InputValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof EnumLiteral) && !(v instanceof LargeIntLiteral);
}

export class VariableScope {
  private readonly defaults = new Map<string, ValueNode>();

  constructor(
    operation: OperationDefinitionNode,
    private readonly variables: Variables,
  ) {
    for (const def of operation.variableDefinitions ?? []) {
      if (def.defaultValue) this.defaults.set(def.variable.name.value, def.defaultValue);
    }
  }

  variable(name: string): InputValue {
    if (Object.prototype.hasOwnProperty.call(this.variables, name)) return fromJson(this.variables[name]);
    const fallback = this.defaults.get(name);
    return fallback ? this.value(fallback) : undefined;
  }

  value(node: ValueNode): InputValue {
    switch (node.kind) {
      case Kind.VARIABLE:
        return this.variable(node.name.value);
      case Kind.INT: {
        const n = Number(node.value);
        return Number.isSafeInteger(n) ? n : new LargeIntLiteral(node.value);
      }
      case Kind.FLOAT:
        return Number(node.value);
      case Kind.STRING:
        return node.value;
      case Kind.BOOLEAN:
        return node.value;
      case Kind.NULL:
        return null;
      case Kind.ENUM:
        return new EnumLiteral(node.value);
      case Kind.LIST:
        return node.values.map((v) => this.value(v));
      case Kind.OBJECT: {
        const out: Record<string, InputValue> = {};
        for (const f of node.fields) {
          const v = this.value(f.value);
          if (v !== undefined) out[f.name.value] = v;
        }
        return out;
      }
      default: {
        const never: never = node;
        throw new Error("unknown value node " + JSON.stringify(never));
      }
    }
  }
}

/**
 * Variables arrive as JSON; strings stay strings (an enum-typed variable holds the enum's name),
 * and an integer too large for a JS number (a BigInt) is checked as a literal of it would be.
 */
function fromJson(v: unknown): InputValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "number" || typeof v === "string") return v;
  if (typeof v === "bigint") return new LargeIntLiteral(v.toString());
  if (Array.isArray(v)) return v.map(fromJson);
  if (typeof v === "object") {
    const out: Record<string, InputValue> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = fromJson(x);
    return out;
  }
  return null;
}

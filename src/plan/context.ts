// Plan stage, shared helpers: the planning context and argument reading for one field.

import type { GraphQLField } from "graphql";
import type { CollectContext } from "../document/collectFields";
import type { InputValue, VariableScope } from "../document/inputValue";
import { UserError } from "../document/UserError";
import type { ApiSchema } from "../schema/apiSchema";
import type { CollectedField } from "../document/collectFields";

export interface PlanContext extends CollectContext {
  api: ApiSchema;
  scope: VariableScope;
}

/** A field's arguments by name, absent ones left out. */
export type FieldArgs = Map<string, InputValue>;

/** The field's arguments by name, absent ones left out; unknown names are a user error. */
export function readArguments(field: CollectedField, def: GraphQLField<unknown, unknown>, scope: VariableScope): FieldArgs {
  const out = new Map<string, InputValue>();
  const extra: string[] = [];
  for (const arg of field.node.arguments ?? []) {
    const name = arg.name.value;
    if (!def.args.some((a) => a.name === name)) {
      extra.push(name);
      continue;
    }
    const value = scope.value(arg.value);
    if (value !== undefined) out.set(name, value);
  }
  if (extra.length > 0) {
    throw new UserError(`Input contains extra keys [${extra.map((k) => JSON.stringify(k)).join(", ")}]`);
  }
  return out;
}

export function argDef(def: GraphQLField<unknown, unknown>, name: string) {
  const a = def.args.find((x) => x.name === name);
  if (!a) throw new UserError(`Unknown argument ${name}`);
  return a;
}

// Document stage: a field's selection sets + the concrete type → the merged fields it asks for,
// in order, with @skip/@include applied and fragments inlined (each fragment once per call, as
// the spec's CollectFields does, so nested spreads cost what the document's size does).

import { Kind, print, type DirectiveNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from "graphql";
import type { VariableScope } from "./inputValue";
import { UserError } from "./UserError";

export interface CollectedField {
  responseKey: string;
  name: string;
  /** The first occurrence; its arguments are the field's (merged occurrences must agree). */
  node: FieldNode;
  /** Sub-selections of every merged occurrence, in document order. */
  selectionSets: SelectionSetNode[];
}

export interface CollectContext {
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  scope: VariableScope;
  /** Counts the field selections visited, for tests of how much work a document costs. */
  visited?: { fields: number };
}

/** Does a fragment's type condition apply to the concrete type (itself or an interface of it)? */
export type TypeMatcher = (typeCondition: string) => boolean;

export function collectFields(
  selectionSets: readonly SelectionSetNode[],
  matches: TypeMatcher,
  ctx: CollectContext,
): CollectedField[] {
  const byKey = new Map<string, CollectedField>();
  const order: CollectedField[] = [];
  // A fragment spread again adds nothing new (its fields merge with themselves).
  const spread = new Set<string>();

  const visit = (set: SelectionSetNode): void => {
    for (const sel of set.selections) {
      if (!included(sel.directives ?? [], ctx.scope)) continue;
      switch (sel.kind) {
        case Kind.FIELD: {
          if (ctx.visited) ctx.visited.fields++;
          const key = sel.alias?.value ?? sel.name.value;
          const existing = byKey.get(key);
          if (!existing) {
            const field: CollectedField = {
              responseKey: key,
              name: sel.name.value,
              node: sel,
              selectionSets: sel.selectionSet ? [sel.selectionSet] : [],
            };
            byKey.set(key, field);
            order.push(field);
            break;
          }
          if (existing.name !== sel.name.value) {
            throw new UserError(`Fields \`${sel.name.value}\` and \`${existing.name}\` are different`);
          }
          if (argumentsText(existing.node) !== argumentsText(sel)) {
            throw new UserError(`Two fields named \`${sel.name.value}\` have different arguments`, true);
          }
          if (sel.selectionSet) existing.selectionSets.push(sel.selectionSet);
          break;
        }
        case Kind.INLINE_FRAGMENT:
          if (!sel.typeCondition || matches(sel.typeCondition.name.value)) visit(sel.selectionSet);
          break;
        case Kind.FRAGMENT_SPREAD: {
          const name = sel.name.value;
          const fragment = ctx.fragments.get(name);
          if (!fragment) throw new UserError(`Unknown fragment ${name}`);
          if (spread.has(name)) break;
          spread.add(name);
          if (matches(fragment.typeCondition.name.value)) visit(fragment.selectionSet);
          break;
        }
        default: {
          const never: never = sel;
          throw new Error("unknown selection " + JSON.stringify(never));
        }
      }
    }
  };

  for (const set of selectionSets) visit(set);
  return order;
}

/** Merged fields must have the same arguments, compared as written (variables by name). */
function argumentsText(node: FieldNode): string {
  return (node.arguments ?? [])
    .map((a) => a.name.value + ":" + print(a.value))
    .sort()
    .join(",");
}

function included(directives: readonly DirectiveNode[], scope: VariableScope): boolean {
  for (const d of directives) {
    const name = d.name.value;
    if (name !== "skip" && name !== "include") continue;
    const arg = d.arguments?.find((a) => a.name.value === "if");
    const value = arg ? scope.value(arg.value) : undefined;
    if (typeof value !== "boolean") {
      throw new UserError(`Value for "if" in @${name} directive is required`);
    }
    if (name === "skip" && value) return false;
    if (name === "include" && !value) return false;
  }
  return true;
}

// Document stage: query text + operationName → the chosen operation and its fragments, or a
// user error with pg_graphql's text. Parsing is graphql-js's; the checks and messages are ours.

import {
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";

export interface PreparedDocument {
  kind: "ok";
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

/** pg_graphql answers these document-level errors without a `data` key. */
export interface DocumentError {
  kind: "error";
  message: string;
}

export function prepareDocument(query: string, operationName: string | null): PreparedDocument | DocumentError {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (e) {
    return { kind: "error", message: e instanceof Error ? e.message : String(e) };
  }

  const operations: OperationDefinitionNode[] = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === "OperationDefinition") operations.push(def);
    else if (def.kind === "FragmentDefinition") fragments.set(def.name.value, def);
  }

  // An anonymous operation can only be chosen when it is alone (no name could select it).
  if (operations.length > 1 && operations.some((op) => !op.name)) {
    return { kind: "error", message: "Anonymous operations must be the only defined operation" };
  }

  const names = new Set<string>();
  for (const op of operations) {
    if (!op.name) continue;
    if (names.has(op.name.value)) return { kind: "error", message: "Operation names must be unique" };
    names.add(op.name.value);
  }

  let operation: OperationDefinitionNode | undefined;
  if (operationName !== null && operationName !== undefined) {
    operation = operations.find((op) => op.name?.value === operationName);
  } else if (operations.length === 1) {
    operation = operations[0];
  }
  if (!operation) return { kind: "error", message: "Operation not found" };

  if (hasFragmentCycle(fragments)) return { kind: "error", message: "Found a cycle between fragments" };

  if (operation.operation === "subscription") return { kind: "error", message: "Subscriptions are not supported" };

  return { kind: "ok", operation, fragments };
}

/** Depth-first walk over fragment spreads; a spread back onto the current path is a cycle. */
function hasFragmentCycle(fragments: ReadonlyMap<string, FragmentDefinitionNode>): boolean {
  const done = new Set<string>();
  const onPath = new Set<string>();

  function spreadsOf(set: SelectionSetNode, out: string[]): string[] {
    for (const sel of set.selections) {
      if (sel.kind === "FragmentSpread") out.push(sel.name.value);
      else if (sel.selectionSet) spreadsOf(sel.selectionSet, out);
    }
    return out;
  }

  function visit(name: string): boolean {
    if (onPath.has(name)) return true;
    if (done.has(name)) return false;
    const fragment = fragments.get(name);
    if (!fragment) return false;
    onPath.add(name);
    for (const next of spreadsOf(fragment.selectionSet, [])) if (visit(next)) return true;
    onPath.delete(name);
    done.add(name);
    return false;
  }

  for (const name of fragments.keys()) if (visit(name)) return true;
  return false;
}

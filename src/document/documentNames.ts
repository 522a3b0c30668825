// Document stage, names: a prepared document → every name it uses (fields, aliases, arguments,
// type conditions), which is all a large catalog's API needs to know to narrow what it builds.

import { Kind, type ASTNode } from "graphql";
import type { PreparedDocument } from "./prepareDocument";

export function documentNames(doc: PreparedDocument): Set<string> {
  const names = new Set<string>();
  collectNames(doc.operation, names);
  for (const f of doc.fragments.values()) collectNames(f, names);
  return names;
}

/**
 * A plain walk over the syntax tree rather than graphql-js's `visit`: it runs in a backend's first
 * request, before V8 has compiled anything, where the general visitor's machinery costs
 * milliseconds. Every child of a node is a node or a list of nodes; `loc` is the source position.
 */
function collectNames(node: ASTNode | readonly ASTNode[], names: Set<string>): void {
  if (Array.isArray(node)) {
    for (const child of node) collectNames(child, names);
    return;
  }
  const n = node as ASTNode;
  if (n.kind === Kind.NAME) {
    names.add(n.value);
    return;
  }
  for (const key in n) {
    if (key === "loc") continue;
    const child = (n as unknown as Record<string, unknown>)[key];
    if (child !== null && typeof child === "object") collectNames(child as ASTNode, names);
  }
}

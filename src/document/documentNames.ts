// Document stage, names: a prepared document → every name it uses (fields, aliases, arguments,
// type conditions), which is all a large catalog's API needs to know to narrow what it builds.

import { visit, type ASTNode } from "graphql";
import type { PreparedDocument } from "./prepareDocument";

export function documentNames(doc: PreparedDocument): Set<string> {
  const names = new Set<string>();
  const collect = (node: ASTNode) =>
    visit(node, {
      Name(n) {
        names.add(n.value);
      },
    });
  collect(doc.operation);
  for (const f of doc.fragments.values()) collect(f);
  return names;
}

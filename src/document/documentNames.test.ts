import { visit } from "graphql";
import { describe, expect, it } from "vitest";
import { documentNames } from "./documentNames";
import { prepareDocument, type PreparedDocument } from "./prepareDocument";

function ok(query: string, operationName: string | null = null): PreparedDocument {
  const d = prepareDocument(query, operationName);
  if (d.kind !== "ok") throw new Error(d.message);
  return d;
}

/** graphql-js's own visitor over the same nodes: the names the walk must find. */
function visited(d: PreparedDocument): Set<string> {
  const names = new Set<string>();
  for (const node of [d.operation, ...d.fragments.values()]) visit(node, { Name: (n) => void names.add(n.value) });
  return names;
}

describe("documentNames", () => {
  const documents: [string, string | null][] = [
    ["{ a }", null],
    [
      `query Q($id: ID!, $f: PostFilter = {title: {eq: "x"}}) @dir(arg: 1) {
         alias: postCollection(filter: $f, orderBy: [{id: DescNullsLast}], first: 2) {
           edges { node { id ...F ... on Post @include(if: true) { author { name } } } }
         }
         node(nodeId: $id) { __typename }
       }
       fragment F on Post { comments: commentCollection(filter: {or: [{body: {ilike: "%a%"}}, {id: {in: [1, 2]}}]}) { totalCount } }`,
      null,
    ],
    [
      `query A { a } mutation B { insertIntoBlogCollection(objects: [{name: "n", tags: ["t"], owner: {object: {email: "e"}}}]) { records { id } } }`,
      "B",
    ],
  ];

  it.each(documents)("finds every name graphql-js's visitor finds in %s", (query, operationName) => {
    const d = ok(query, operationName);
    expect(documentNames(d)).toEqual(visited(d));
  });

  it("finds names in fragments, aliases, arguments, object fields, types, directives and variables", () => {
    const names = documentNames(ok(documents[1]![0]));
    for (const n of ["Q", "id", "ID", "PostFilter", "title", "eq", "dir", "arg", "alias", "postCollection", "F", "Post", "include", "author", "comments", "commentCollection", "or", "body", "ilike", "in", "totalCount", "__typename"]) {
      expect(names).toContain(n);
    }
    // Values (an enum value among them) are not names.
    expect(names).not.toContain("x");
    expect(names).not.toContain("DescNullsLast");
  });

  it("reads only the chosen operation and the fragments", () => {
    const names = documentNames(ok(documents[2]![0], "B"));
    expect(names).toContain("insertIntoBlogCollection");
    expect(names).not.toContain("a");
  });
});

// Settings stage: a schema's comment and a page-size cap → the comment with `max_rows` set in its
// `@graphql({...})` directive (the resolver's own cap), everything else in the comment kept.
import { directiveJson } from "../../../../src/catalog/directives";

export function withMaxRows(comment: string | null, maxRows: number): string {
  const directive = { ...directiveJson(comment), max_rows: maxRows };
  const text = `@graphql(${JSON.stringify(directive)})`;
  if (comment === null || comment.trim() === "") return text;
  const start = comment.indexOf("@graphql(");
  if (start < 0) return `${comment}\n${text}`;
  return comment.slice(0, start) + text + comment.slice(comment.lastIndexOf(")") + 1);
}

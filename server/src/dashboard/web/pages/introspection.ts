// GraphiQL page stage (pure): a schema's comment → whether pg_graphql's introspection is on for
// it (off unless its `@graphql` directive says `"introspection": true`), and the statement that
// turns it on, keeping the comment's other settings and words. The page shows the statement; it
// never runs it.
import { directiveJson } from "../../../../../src/catalog/directives";

export type IntrospectionState = { kind: "on" } | { kind: "off" } | { kind: "unreadable"; message: string };

export function introspectionState(comment: string | null): IntrospectionState {
  try {
    return directiveJson(comment)["introspection"] === true ? { kind: "on" } : { kind: "off" };
  } catch (e) {
    return { kind: "unreadable", message: (e as Error).message };
  }
}

export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export function introspectionStatement(schema: string, comment: string | null): string {
  let settings: Record<string, unknown> = {};
  try {
    settings = directiveJson(comment);
  } catch {
    // An unreadable directive is replaced whole.
  }
  const directive = `@graphql(${JSON.stringify({ ...settings, introspection: true })})`;
  let text = directive;
  if (comment !== null && comment.trim() !== "") {
    const start = comment.indexOf("@graphql(");
    const end = comment.lastIndexOf(")");
    text = start >= 0 && end > start ? comment.slice(0, start) + directive + comment.slice(end + 1) : `${comment} ${directive}`;
  }
  return `comment on schema ${quoteIdent(schema)} is ${quoteLiteral(text)};`;
}

/** Reads the comments of the schemas the data API serves (run read-only; $1 is their list). */
export const schemaCommentsSql = `select n.nspname as schema, pg_catalog.obj_description(n.oid, 'pg_namespace') as comment
  from pg_catalog.pg_namespace n
 where n.nspname = any (pg_catalog.string_to_array($1, ','))
 order by 1`;

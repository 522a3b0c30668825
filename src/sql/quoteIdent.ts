// SQL stage: the one function that turns a name into an SQL identifier.
// Every schema, table, column, function and type name in generated SQL passes through here.

export function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

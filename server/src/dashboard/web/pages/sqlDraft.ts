// SQL page stage: the editor's text per project, kept in this tab (sessionStorage) so it survives
// moving between pages; other pages may hand it a statement to show, never to run.

const key = (ref: string) => `pg-graphql-dashboard-sql:${ref}`;

export function readDraft(ref: string): string {
  return sessionStorage.getItem(key(ref)) ?? "select now();";
}

export function writeDraft(ref: string, text: string): void {
  sessionStorage.setItem(key(ref), text);
}

// SQL page stage (pure): the API's report of a failed statement (psql's form: `LINE n: <text>`
// and a caret under the failing character) → where that is in the editor's text.

export interface ErrorPosition {
  /** 1-based line and column, as people count them. */
  line: number;
  column: number;
  /** 0-based offset into the text, for the editor's selection. */
  offset: number;
}

export function errorPosition(message: string, text: string): ErrorPosition | undefined {
  const lines = message.split("\n");
  const at = lines.findIndex((l) => /^LINE \d+: /.test(l));
  if (at < 0 || at + 1 >= lines.length) return undefined;
  const prefix = /^LINE (\d+): /.exec(lines[at]!)!;
  const caret = lines[at + 1]!.indexOf("^");
  if (caret < prefix[0].length) return undefined;
  const line = Number(prefix[1]);
  const column = caret - prefix[0].length + 1;
  const textLines = text.split("\n");
  if (line < 1 || line > textLines.length) return undefined;
  const before = textLines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  return { line, column, offset: Math.min(before + column - 1, text.length) };
}

// Plan stage: the JSON array inside a cursor or node id → its items, numbers kept as their exact
// text (a bigint key past 2^53 would lose digits as a JS number). Invalid JSON gives null.

/** A number as written in the JSON text. */
export class NumberText {
  constructor(readonly text: string) {}
}

/** Items are strings, numbers (as written), booleans, null, or parsed JSON objects/arrays. */
export type KeyItem = string | NumberText | boolean | null | object;

export function parseKeyArray(text: string): KeyItem[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  // Re-read the top-level number tokens from the text itself, in order.
  const numbers: string[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    } else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
    else if (depth === 1 && /[-0-9]/.test(c)) {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
      if (m) {
        numbers.push(m[0]);
        i += m[0].length - 1;
      }
    }
  }
  let n = 0;
  return parsed.map((item: unknown): KeyItem => (typeof item === "number" ? new NumberText(numbers[n++] ?? String(item)) : (item as KeyItem)));
}

/** The text a key item is bound as (cast to the column's type in the statement). */
export function keyItemText(item: KeyItem): string | null {
  if (item === null) return null;
  if (typeof item === "string") return item;
  if (typeof item === "boolean") return String(item);
  if (item instanceof NumberText) return item.text;
  return JSON.stringify(item);
}

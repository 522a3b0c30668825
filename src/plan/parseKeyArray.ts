// Plan stage: the JSON array inside a cursor or node id → its items, numbers kept as their exact
// text (a bigint key past 2^53 would lose digits as a JS number). Invalid JSON gives null.

import { parseJsonExact } from "../util/parseJsonExact";

/** A number as written in the JSON text. */
export class NumberText {
  constructor(readonly text: string) {}

  /** Inside an object or array item, a number is written back as a JS number would be. */
  toJSON(): number {
    return Number(this.text);
  }
}

/** Items are strings, numbers (as written), booleans, null, or parsed JSON objects/arrays. */
export type KeyItem = string | NumberText | boolean | null | object;

export function parseKeyArray(text: string): KeyItem[] | null {
  let parsed: unknown;
  try {
    parsed = parseJsonExact(text, (number) => new NumberText(number));
  } catch {
    return null;
  }
  return Array.isArray(parsed) ? (parsed as KeyItem[]) : null;
}

/** The text a key item is bound as (cast to the column's type in the statement). */
export function keyItemText(item: KeyItem): string | null {
  if (item === null) return null;
  if (typeof item === "string") return item;
  if (typeof item === "boolean") return String(item);
  if (item instanceof NumberText) return item.text;
  return JSON.stringify(item);
}

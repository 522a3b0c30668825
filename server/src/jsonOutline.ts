// HTTP stage: JSON text already accepted by JSON.parse → how deeply it nests and the exact source
// text of each member of its top-level object. The text of `variables` is forwarded to the
// database as written, so no digit of a large number is lost to a JS number on the way.

export interface JsonOutline {
  /** Levels of objects and arrays: 0 for a scalar, 1 for `{}` or `[1]`. */
  depth: number;
  /** The exact text of each top-level member's value (the last one for a repeated key, as
   * JSON.parse keeps it); empty when the text is not an object. */
  members: Map<string, string>;
}

const STRING = /"(?:[^"\\]|\\.)*"/y;

/** Walks the text once, without recursion, so any nesting costs linear time and no stack. The
 * text must be valid JSON (checked by JSON.parse first). */
export function outlineJson(text: string): JsonOutline {
  const members = new Map<string, string>();
  let depth = 0;
  let deepest = 0;
  let key: string | undefined;
  let expectKey = false;
  let valueStart = 0;
  const closeMember = (end: number) => {
    if (key !== undefined) members.set(key, text.slice(valueStart, end).trim());
    key = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      STRING.lastIndex = i;
      const quoted = STRING.exec(text)![0];
      if (depth === 1 && expectKey) key = JSON.parse(quoted) as string;
      i += quoted.length - 1;
    } else if (c === "{" || c === "[") {
      depth += 1;
      deepest = Math.max(deepest, depth);
      expectKey = depth === 1 && c === "{";
    } else if (c === "}" || c === "]") {
      if (depth === 1) closeMember(i);
      depth -= 1;
    } else if (depth === 1 && c === ":") {
      expectKey = false;
      valueStart = i + 1;
    } else if (depth === 1 && c === ",") {
      closeMember(i);
      expectKey = true;
    }
  }
  return { depth: deepest, members };
}

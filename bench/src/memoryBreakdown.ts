// Bench stage: where a backend's memory goes. Input: a backend's pid, or the rows of its
// pg_backend_memory_contexts. Output: private memory per mapping (/proc/PID/smaps) and the
// memory contexts with what their children hold added in.
import { readFileSync } from "node:fs";

export interface MappingMemory {
  name: string;
  privateKiB: number;
}

/** Private_Clean + Private_Dirty summed per mapped file (or [heap], [stack], anonymous), largest first. */
export function privateByMapping(pid: number): MappingMemory[] {
  const sums = new Map<string, number>();
  let name = "";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      name = header[1] || "[anonymous]";
      continue;
    }
    const field = /^Private_(?:Clean|Dirty):\s+(\d+) kB/.exec(line);
    if (field) sums.set(name, (sums.get(name) ?? 0) + Number(field[1]));
  }
  return [...sums].map(([n, kib]) => ({ name: n, privateKiB: kib })).sort((a, b) => b.privateKiB - a.privateKiB);
}

export interface ContextTotal {
  name: string;
  ident: string | null;
  level: number;
  totalBytes: number;
}

/**
 * The view lists contexts depth first, each with its own bytes; the totals add every
 * descendant's. Returned: the contexts of the top three levels holding 64 kB or more.
 */
export function contextTotals(rows: { name: string; ident: string | null; level: number; total_bytes: string }[]): ContextTotal[] {
  const all: ContextTotal[] = [];
  const stack: ContextTotal[] = [];
  for (const r of rows) {
    const c: ContextTotal = { name: r.name, ident: r.ident, level: Number(r.level), totalBytes: 0 };
    while (stack.length > 0 && stack[stack.length - 1]!.level >= c.level) stack.pop();
    stack.push(c);
    for (const s of stack) s.totalBytes += Number(r.total_bytes);
    all.push(c);
  }
  const top = Math.min(...all.map((c) => c.level));
  return all.filter((c) => c.level <= top + 2 && c.totalBytes >= 64 * 1024);
}

import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, plv8Database } from "./support";

// With the handler preloaded, the postmaster maps the read-only pages of V8's library and of the
// ICU libraries V8 calls, so a backend that runs V8 shares every such page it reads rather than
// counting it as its own.
const libraries = ["libnode.so", "libicuuc.so", "libicui18n.so"];

interface Mapped {
  rssKb: number;
  privateKb: number;
}

/** Resident and private kB of the read-only mappings of each library in a process. */
function readOnlyMappings(pid: number): Map<string, Mapped> {
  const out = new Map<string, Mapped>(libraries.map((l) => [l, { rssKb: 0, privateKb: 0 }]));
  let current: Mapped | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s+(.*)$/.exec(line);
    if (head) {
      const library = libraries.find((l) => head[2]!.includes(l));
      current = library !== undefined && !head[1]!.includes("w") ? out.get(library) : undefined;
      continue;
    }
    const field = /^(Rss|Private_Clean|Private_Dirty):\s+(\d+) kB/.exec(line);
    if (!field || !current) continue;
    if (field[1] === "Rss") current.rssKb += Number(field[2]);
    else current.privateKb += Number(field[2]);
  }
  return out;
}

describe("library pages shared with the postmaster", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    // Collation, number and date formatting: V8 runs ICU's code for each.
    await db.query(`create function use_icu() returns text as $$
      const words = ['été', 'Zebra', 'apple', 'Äpfel'].sort(new Intl.Collator('de').compare);
      return words.join(' ') + ' ' + (1234567.891).toLocaleString('de-DE') + ' ' + new Intl.DateTimeFormat('fr', { timeZone: 'UTC' }).format(0);
    $$ language plv8`);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("leaves none of libnode's or ICU's read-only pages private to a backend that ran V8", async () => {
    const client = await db.connect();
    try {
      const { rows } = await client.query("select use_icu() as v");
      expect(rows[0].v).toContain("Äpfel");
      const mapped = readOnlyMappings(await backendPid(client));
      for (const library of libraries) {
        const m = mapped.get(library)!;
        // The backend did read the library's pages, and every one of them is shared.
        expect(m.rssKb, library).toBeGreaterThan(0);
        expect(m.privateKb, library).toBe(0);
      }
    } finally {
      await client.end();
    }
  });
});

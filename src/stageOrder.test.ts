// The stage folders of src/ import one way: each folder may import only from the folders before
// it in STAGES. `sql` (the AST, its renderer and quoting) sits below `plan` and `transpile`: plan
// values are bound-parameter nodes and transpile builds AST, while sql itself knows neither.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const STAGES = ["util", "catalog", "schema", "document", "sql", "plan", "transpile", "execute"];
const SRC = resolve(__dirname);

/** Each import from another stage folder that the order forbids, as `file -> target`. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const from = relative(SRC, file).split(sep)[0]!;
    for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s*["'](\.[^"']+)["']/g)) {
      const to = relative(SRC, resolve(dirname(file), m[1]!)).split(sep)[0]!;
      if (to === from || to.startsWith("..")) continue;
      const rank = (stage: string): number => (STAGES.includes(stage) ? STAGES.indexOf(stage) : STAGES.length);
      if (rank(to) >= rank(from)) out.push(`${relative(SRC, file)} -> ${m[1]}`);
    }
  }
  return out;
}

function sources(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.ts$/.test(name) && !/\.test\.ts$/.test(name)) out.set(path, readFileSync(path, "utf8"));
  }
  return out;
}

describe("stage order", () => {
  it("has no import from a later stage into an earlier one", () => {
    expect(violations(sources(SRC))).toEqual([]);
  });

  it("names an import against the order", () => {
    const files = new Map([
      [join(SRC, "plan/x.ts"), 'import { buildRootSelect } from "../transpile/buildRootSelect";'],
      [join(SRC, "sql/y.ts"), 'import type { NodePlan } from "../plan/types";\nimport { invariant } from "../util/invariant";'],
      [join(SRC, "transpile/z.ts"), 'import { select } from "../sql/ast";'],
    ]);
    expect(violations(files)).toEqual(["plan/x.ts -> ../transpile/buildRootSelect", "sql/y.ts -> ../plan/types"]);
  });
});

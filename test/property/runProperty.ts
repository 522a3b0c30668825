// Property test: random schemas and random valid queries over them, checked against the plain-SQL
// oracle and the paging and mutation invariants. A failure names its seed and case, prints the
// schema, the requests and the difference, and how to replay just that case.
import type pg from "pg";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import { Resolver } from "../../src/execute/Resolver";
import { connectionCase, mutationCase, nodeCase, walkCase, type CaseContext, type CaseResult } from "./cases";
import { Coverage } from "./coverage";
import { Random } from "./random";
import { randomSchema, schemaSql, SCHEMA } from "./schemaModel";

export const CASES_PER_SCHEMA = 25;

export interface PropertyRun {
  seed: number;
  cases: number;
  /** Replays one case: "schema:case". */
  only?: string;
}

export interface PropertyResult {
  cases: number;
  coverage: Coverage;
  failures: string[];
}

function caseSeed(seed: number, schema: number, index: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 31) + Math.imul(schema + 1, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
}

async function runCase(ctx: CaseContext): Promise<CaseResult> {
  const roll = ctx.rnd.next();
  if (roll < 0.55) return connectionCase(ctx, false);
  if (roll < 0.72) return connectionCase(ctx, true);
  if (roll < 0.82) return walkCase(ctx);
  if (roll < 0.87) return nodeCase(ctx);
  return mutationCase(ctx);
}

export async function runProperty(client: pg.Client, run: PropertyRun, coverage = new Coverage()): Promise<PropertyResult> {
  const failures: string[] = [];
  const [onlySchema, onlyCase] = run.only ? run.only.split(":").map(Number) : [undefined, undefined];
  let done = 0;
  for (let g = 0; g * CASES_PER_SCHEMA < run.cases; g++) {
    if (onlySchema !== undefined && g !== onlySchema) continue;
    const model = randomSchema(caseSeed(run.seed, g, -1));
    const ddl = schemaSql(model);
    await client.query(ddl);
    await client.query(`set search_path to ${SCHEMA}`);
    const api = Resolver.apiOf((await client.query(REFLECTION_QUERY)).rows[0].catalog);
    for (let k = 0; k < CASES_PER_SCHEMA && g * CASES_PER_SCHEMA + k < run.cases; k++) {
      if (onlyCase !== undefined && k !== onlyCase) continue;
      const rnd = new Random(caseSeed(run.seed, g, k));
      const viaExtension = rnd.chance(0.2);
      coverage.add(viaExtension ? "via:extension" : "via:node");
      coverage.add(model.inflect ? "inflect:on" : "inflect:off");
      const ctx: CaseContext = { client, api, model, rnd, coverage, log: [], viaExtension };
      let result: CaseResult;
      try {
        result = await runCase(ctx);
      } catch (e) {
        result = `threw ${(e as Error).stack ?? e}`;
      }
      done++;
      if (result === null) continue;
      const requests = ctx.log.slice(-3).map((q) => `${q.text}\n  variables: ${JSON.stringify(q.variables)}`);
      failures.push(
        [
          `property case failed: seed ${run.seed}, case ${g}:${k}: ${result}`,
          `through ${ctx.viaExtension ? "graphql.resolve (PLV8)" : "the Node pipeline"}`,
          `replay: PROPERTY_SEEDS=${run.seed} PROPERTY_ONLY=${g}:${k} npx vitest run test/property`,
          `last requests:\n${requests.join("\n")}`,
          `schema:\n${ddl}`,
        ].join("\n"),
      );
      if (failures.length >= 3) return { cases: done, coverage, failures };
    }
  }
  return { cases: done, coverage, failures };
}

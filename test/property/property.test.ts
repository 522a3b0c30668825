// The property test: a few hundred random cases in the normal run; more seeds and cases with
// PROPERTY_SEEDS=1,2,3 PROPERTY_CASES=10000 (see the README's "Property test" section).
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { Coverage } from "./coverage";
import { runProperty } from "./runProperty";

const seeds = (process.env["PROPERTY_SEEDS"] ?? "20261123").split(",").map(Number);
const cases = Number(process.env["PROPERTY_CASES"] ?? 300);
const only = process.env["PROPERTY_ONLY"];

describe("property: random schemas and queries against the SQL oracle", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    client = await db.connect();
    // Writes raise their errors through the extension's SQL functions.
    await client.query("create extension pg_graphql cascade");
  });
  afterAll(async () => db.drop());

  it(`answers ${cases} cases per seed as the oracle and invariants say (seeds ${seeds.join(", ")})`, { timeout: 24 * 3600_000 }, async () => {
    const coverage = new Coverage();
    let total = 0;
    for (const seed of seeds) {
      const result = await runProperty(client, { seed, cases, ...(only ? { only } : {}) }, coverage);
      total += result.cases;
      expect(result.failures, result.failures.join("\n\n")).toEqual([]);
    }
    console.log(`property: ${total} cases\ncoverage: ${coverage.report()}`);
    if (!only) expect(coverage.shortfalls(total), "features generated below their minimum").toEqual([]);
  });
});

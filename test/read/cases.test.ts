// The pg_regress read cases, answered by the Node-side pipeline (see caseRunner.ts). Runs when
// PG_GRAPHQL_CASES names a cases directory (sql/, expected/, fixtures.sql, read-cases.txt).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { runCase, splitStatements, STUB_SQL } from "./caseRunner";

const dir = process.env["PG_GRAPHQL_CASES"];
const names = dir ? readFileSync(join(dir, "read-cases.txt"), "utf8").split(/\s+/).filter(Boolean) : [];
const only = process.env["PG_GRAPHQL_CASE"];

describe.skipIf(!dir)("read cases through the Node pipeline", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => db.drop());

  // PG_GRAPHQL_CASE=a,b runs just those (any case of the directory).
  for (const name of only ? only.split(",") : names) {
    it(name, async () => {
      const client = await db.connect();
      try {
        // Raw text for json, jsonb and bool, as psql prints them.
        for (const oid of [114, 3802, 16]) client.setTypeParser(oid, (v: string) => v);
        await client.query("drop schema if exists graphql cascade; drop schema public cascade; create schema public; grant all on schema public to public;");
        // pg_regress runs every case with these settings.
        await client.query("set datestyle = 'Postgres, MDY'; set timezone = 'PST8PDT'");
        await client.query(STUB_SQL);
        await client.query(readFileSync("sql/20_helpers.sql", "utf8"));
        for (const st of splitStatements(readFileSync(join(dir!, "fixtures.sql"), "utf8"))) {
          if (/extension/.test(st)) continue;
          await client.query(st);
        }
        const result = await runCase(
          client,
          name,
          readFileSync(join(dir!, "sql", name + ".sql"), "utf8"),
          readFileSync(join(dir!, "expected", name + ".out"), "utf8"),
        );
        await client.query("rollback").catch(() => {});
        const report = process.env["PG_GRAPHQL_CASES_OUT"];
        if (report && result.mismatches.length > 0) {
          const text = result.mismatches.map((m) => `=== ${m.statement}\n--- expected\n${m.expected}\n+++ actual\n${m.actual}\n`).join("\n");
          writeFileSync(join(report, name + ".diff"), text);
        }
        expect(result.mismatches).toEqual([]);
        expect(result.compared).toBeGreaterThan(0);
        expect(result.unmatched).toBe(0);
      } finally {
        await client.end();
      }
    });
  }
});

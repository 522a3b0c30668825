// The reflection query is planned and run without JIT, whatever the caller's JIT settings, and
// the caller's setting is left as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

describe("reflection and JIT", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
    await db.query("create schema stats; create extension pg_stat_statements schema stats");
    await db.query("create table account(id int primary key, email text)");
  });
  afterAll(async () => db.drop());

  it("reflects without JIT when every statement would be JIT-compiled, and keeps the caller's setting", async () => {
    const client = await db.connect();
    try {
      await client.query("select stats.pg_stat_statements_reset()");
      await client.query("set jit = on; set jit_above_cost = 0; set jit_inline_above_cost = -1; set jit_optimize_above_cost = -1");
      await client.query("begin");
      const { rows } = await client.query(
        "select graphql.resolve('{ accountCollection { edges { node { id } } } }') as answer, current_setting('jit') as jit",
      );
      await client.query("commit");
      expect(rows[0].answer).toEqual({ data: { accountCollection: { edges: [] } } });
      expect(rows[0].jit).toBe("on");

      const { rows: reflected } = await db.query(
        `select sum(s.calls)::int as calls, sum(s.jit_functions)::int as jit_functions
           from stats.pg_stat_statements s join pg_database d on d.oid = s.dbid
          where d.datname = current_database() and s.query like '%exposed_schemas%'`,
      );
      expect(reflected[0].calls).toBe(1);
      expect(reflected[0].jit_functions).toBe(0);

      // The same session does JIT-compile other statements where the server can, so the zero
      // above is the resolver's doing.
      const { rows: available } = await client.query("select pg_jit_available() as yes");
      if (available[0].yes) {
        const { rows: generated } = await db.query(
          `select sum(s.jit_functions)::int as jit_functions
             from stats.pg_stat_statements s join pg_database d on d.oid = s.dbid
            where d.datname = current_database() and s.query like '%"public"."account"%'`,
        );
        expect(generated[0].jit_functions).toBeGreaterThan(0);
      }
    } finally {
      await client.end();
    }
  });
});

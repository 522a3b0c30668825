// Neither the reflection query nor the generated statements are JIT-compiled, whatever the
// caller's JIT settings (graphql._internal_resolve runs with `jit = off`), and the caller's
// setting is left as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

const nested = `{ accountCollection(first: 5) { edges { node { id email
  postCollection(first: 3, filter: { id: { gt: 0 } }) { edges { node { id title } } } } } } }`;

describe("resolve and JIT", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
    await db.query("create schema stats; create extension pg_stat_statements schema stats");
    await db.query(`
      create table account(id int primary key, email text);
      create table post(id int primary key, account_id int not null references account(id), title text);
      insert into account select i, 'a' || i from generate_series(1, 20) i;
      insert into post select i, 1 + i % 20, 't' || i from generate_series(1, 100) i;
      analyze account, post;`);
  });
  afterAll(async () => db.drop());

  const statsOf = (pattern: string) =>
    db.query(
      `select coalesce(sum(s.calls), 0)::int as calls, coalesce(sum(s.jit_functions), 0)::int as jit_functions
         from stats.pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = current_database() and s.query like $1`,
      [pattern],
    );

  it("compiles nothing for a nested resolve when every statement would be JIT-compiled, and keeps the caller's setting", async () => {
    const client = await db.connect();
    try {
      await client.query("select stats.pg_stat_statements_reset()");
      await client.query("set jit = on; set jit_above_cost = 0; set jit_inline_above_cost = -1; set jit_optimize_above_cost = -1");
      // Past the plan cache's five custom plans, so generic plans are covered too.
      for (let i = 0; i < 7; i++) {
        await client.query("begin");
        const { rows } = await client.query("select graphql.resolve($1) as answer, current_setting('jit') as jit", [nested]);
        await client.query("commit");
        expect(rows[0].answer.data.accountCollection.edges).toHaveLength(5);
        expect(rows[0].answer.data.accountCollection.edges[0].node.postCollection.edges).toHaveLength(3);
        expect(rows[0].jit).toBe("on");
      }

      // Both catalog reads: the directory (which tells a large catalog from a small one) and the reflection.
      const reflected = await statsOf("%exposed_schemas%");
      expect(reflected.rows[0]).toEqual({ calls: 2, jit_functions: 0 });
      const generated = await statsOf('%"public"."account"%');
      expect(generated.rows[0].calls).toBe(7);
      expect(generated.rows[0].jit_functions).toBe(0);

      // The same session does JIT-compile a plain statement over the same tables where the
      // server can, so the zeros above are the resolver's doing.
      const { rows: available } = await client.query("select pg_jit_available() as yes");
      if (available[0].yes) {
        await client.query("select a.id, count(p.id) as posts_of_account from account a join post p on p.account_id = a.id group by a.id");
        const plain = await statsOf("%posts_of_account%");
        expect(plain.rows[0].jit_functions).toBeGreaterThan(0);
      }
    } finally {
      await client.end();
    }
  });
});

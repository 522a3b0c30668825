// graphql.resolve is an ordinary SQL function: other SQL and PL functions can call it, inside a
// transaction that also writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

describe("graphql.resolve called from other functions", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
    await db.query("create table audit(id serial primary key, answer jsonb)");
    await db.query(`
      create function ask_plpgsql(q text) returns jsonb language plpgsql as $$
      declare answer jsonb;
      begin
        answer := graphql.resolve(q);
        insert into audit(answer) values (answer);
        return answer;
      end $$`);
    await db.query(`create function ask_sql(q text) returns jsonb language sql as $$ select graphql.resolve(q) $$`);
  });
  afterAll(async () => db.drop());

  it("works from plpgsql and SQL functions in a writing transaction", async () => {
    const client = await db.connect();
    try {
      await client.query("begin");
      await client.query("insert into audit(answer) values ('{}')");
      const a = await client.query("select ask_plpgsql('{ __typename }') as r");
      const b = await client.query("select ask_sql('{ __typename }') as r");
      expect(a.rows[0].r).toEqual({ data: { __typename: "Query" } });
      expect(b.rows[0].r).toEqual({ data: { __typename: "Query" } });
      await client.query("commit");
      const { rows } = await client.query("select count(*)::int as n from audit");
      expect(rows[0].n).toBe(2);
    } finally {
      await client.end();
    }
  });
});

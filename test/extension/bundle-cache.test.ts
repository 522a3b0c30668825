// The resolver bundle is evaluated once per backend (and role), not once per call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

describe("bundle evaluation", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
  });
  afterAll(async () => db.drop());

  it("evaluates the bundle once for many calls in one backend", async () => {
    const client = await db.connect();
    try {
      await client.query("select count(graphql.resolve('{ __typename }')) from generate_series(1, 200)");
      for (let i = 0; i < 20; i++) await client.query("select graphql.resolve('{ __typename }')");
      const { rows } = await client.query("select graphql._bundle_info() as info");
      expect(rows[0].info.evaluations).toBe(1);
    } finally {
      await client.end();
    }
  });

  it("evaluates the bundle again in each new backend", async () => {
    const client = await db.connect();
    try {
      const { rows } = await client.query("select graphql.resolve('{ __typename }'), graphql._bundle_info() as info");
      expect(rows[0].info.evaluations).toBe(1);
    } finally {
      await client.end();
    }
  });

  it("keeps the transaction usable and unchanged after a failing request", async () => {
    const client = await db.connect();
    try {
      await client.query("begin");
      await client.query("create table kept(id int)");
      await client.query("insert into kept values (1)");
      const { rows } = await client.query("select graphql.resolve('query {') as r");
      expect(rows[0].r).toEqual({ errors: [{ message: "Syntax Error: Expected Name, found <EOF>." }] });
      const count = await client.query("select count(*)::int as n from kept");
      expect(count.rows[0].n).toBe(1);
      await client.query("rollback");
    } finally {
      await client.end();
    }
  });
});

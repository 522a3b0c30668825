import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { plv8Database } from "./support";

// Compiled functions are cached per backend and recompiled when pg_proc changes.
describe("function cache", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("recompiles after CREATE OR REPLACE, in this backend and in another one", async () => {
    const a = await db.connect();
    const b = await db.connect();
    await a.query("create function answer() returns int as $$ return 1; $$ language plv8");
    expect((await a.query("select answer() as v")).rows[0].v).toBe(1);
    expect((await b.query("select answer() as v")).rows[0].v).toBe(1);
    await a.query("create or replace function answer() returns int as $$ return 2; $$ language plv8");
    expect((await a.query("select answer() as v")).rows[0].v).toBe(2);
    expect((await b.query("select answer() as v")).rows[0].v).toBe(2);
    await a.end();
    await b.end();
  });

  it("picks up renamed arguments and a changed return type", async () => {
    const client = await db.connect();
    await client.query("create function shape(x int) returns int as $$ return x * 2; $$ language plv8");
    expect((await client.query("select shape(21) as v")).rows[0].v).toBe(42);
    await client.query("drop function shape(int)");
    await client.query("create function shape(y int) returns text as $$ return 'y=' + y; $$ language plv8");
    expect((await client.query("select shape(5) as v")).rows[0].v).toBe("y=5");
    await client.end();
  });

  it("sees a replaced function through plv8.find_function", async () => {
    const client = await db.connect();
    await client.query("create function callee() returns text as $$ return 'old'; $$ language plv8");
    await client.query("create function caller() returns text as $$ return plv8.find_function('callee')(); $$ language plv8");
    expect((await client.query("select caller() as v")).rows[0].v).toBe("old");
    await client.query("create or replace function callee() returns text as $$ return 'new'; $$ language plv8");
    expect((await client.query("select caller() as v")).rows[0].v).toBe("new");
    await client.end();
  });

  it("reports a syntax error at CREATE FUNCTION", async () => {
    await expect(db.query("create function broken() returns int as $$ return ( $$ language plv8")).rejects.toMatchObject({
      message: expect.stringMatching(/^SyntaxError: /),
    });
  });
});

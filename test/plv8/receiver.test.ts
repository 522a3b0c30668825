import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { plv8Database } from "./support";

// `this` in a plv8 function is one object per call site, as in PLV8: state kept on it lasts
// across the rows of one statement and is not shared with another call site or statement.
describe("this of a function call", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query(`
      create function counter() returns int as $$ this.n = (this.n || 0) + 1; return this.n; $$ language plv8 volatile;
      create function receiver_kind() returns text as $$
        return (this === globalThis ? 'global' : typeof this) + ':' + Object.keys(this).length;
      $$ language plv8;
    `);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("keeps one object across the rows of a call site", async () => {
    const { rows } = await db.query("select counter() as n from generate_series(1, 3) order by 1");
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
  });

  it("gives each call site of a statement its own object", async () => {
    const { rows } = await db.query("select counter() as a, counter() as b from generate_series(1, 2)");
    expect(rows).toEqual([
      { a: 1, b: 1 },
      { a: 2, b: 2 },
    ]);
  });

  it("starts afresh in the next statement", async () => {
    await db.query("select counter() from generate_series(1, 5)");
    const { rows } = await db.query("select counter() as n");
    expect(rows[0].n).toBe(1);
  });

  it("is a plain object, not the global object", async () => {
    const { rows } = await db.query("select receiver_kind() as v");
    expect(rows[0].v).toBe("object:0");
  });
});

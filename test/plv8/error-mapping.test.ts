import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { pgError, plv8Database } from "./support";

// Errors cross the boundary in both directions with their fields intact.
describe("error mapping", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query(`
      create schema shop;
      create table shop.item (id int primary key, name text not null constraint name_short check (length(name) < 5));
      insert into shop.item values (1, 'pen');
    `);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("gives JavaScript the PostgreSQL error's fields", async () => {
    await db.query(`
      create function catch_unique() returns jsonb as $$
        try {
          plv8.execute("insert into shop.item values (1, 'cup')");
        } catch (e) {
          return { message: e.message, sqlerrcode: e.sqlerrcode, code: e.code, schema_name: e.schema_name,
                   table_name: e.table_name, constraint_name: e.constraint_name, detail: e.detail,
                   isError: e instanceof Error };
        }
      $$ language plv8`);
    const { rows } = await db.query("select catch_unique() as v");
    expect(rows[0].v).toEqual({
      message: 'duplicate key value violates unique constraint "item_pkey"',
      sqlerrcode: "23505",
      code: "23505",
      schema_name: "shop",
      table_name: "item",
      constraint_name: "item_pkey",
      detail: "Key (id)=(1) already exists.",
      isError: true,
    });
  });

  it("carries column and check constraint names", async () => {
    await db.query(`
      create function catch_fields() returns jsonb as $$
        const out = {};
        try { plv8.execute("insert into shop.item values (2, null)"); } catch (e) { out.notnull = [e.sqlerrcode, e.column_name]; }
        try { plv8.execute("insert into shop.item values (3, 'far too long')"); } catch (e) { out.check = [e.sqlerrcode, e.constraint_name]; }
        return out;
      $$ language plv8`);
    const { rows } = await db.query("select catch_fields() as v");
    expect(rows[0].v).toEqual({ notnull: ["23502", "name"], check: ["23514", "name_short"] });
  });

  it("keeps the SQLSTATE and fields of an uncaught PostgreSQL error, with a CONTEXT line", async () => {
    await db.query(`
      create function uncaught() returns void as $$
        plv8.execute("insert into shop.item values (1, 'cup')");
      $$ language plv8`);
    const err = await pgError(db.query("select uncaught()"));
    expect(err.code).toBe("23505");
    expect(err.message).toBe('duplicate key value violates unique constraint "item_pkey"');
    expect(err.detail).toBe("Key (id)=(1) already exists.");
    expect(err.constraint).toBe("item_pkey");
    expect(err.table).toBe("item");
    expect(err.where).toBe(`uncaught() LINE 2:         plv8.execute("insert into shop.item values (1, 'cup')");`);
  });

  it("turns a thrown JS error into an ERROR with its message, code, detail and hint", async () => {
    await db.query(`
      create function throws_custom() returns void as $$
        const e = new Error('not allowed');
        e.code = '42501';
        e.detail = 'the detail';
        e.hint = 'the hint';
        throw e;
      $$ language plv8`);
    const err = await pgError(db.query("select throws_custom()"));
    expect(err.code).toBe("42501");
    expect(err.message).toBe("not allowed");
    expect(err.detail).toBe("the detail");
    expect(err.hint).toBe("the hint");
    expect(err.where).toBe("throws_custom() LINE 6:         throw e;");
  });

  it("reports other JS exceptions as XX000 with the exception's text", async () => {
    const err = await pgError(db.query("do $$ null.x $$ language plv8"));
    expect(err.code).toBe("XX000");
    expect(err.message).toMatch(/^TypeError: Cannot read properties of null/);
    const thrown = await pgError(db.query("do $$ throw 'plain string' $$ language plv8"));
    expect(thrown.message).toBe("plain string");
  });

  it("leaves the transaction usable after a caught SQL error", async () => {
    await db.query(`
      create function recover() returns int as $$
        try { plv8.execute('select 1/0'); } catch (e) {}
        plv8.execute("insert into shop.item values (10, 'ink')");
        return plv8.execute('select count(*)::int as n from shop.item')[0].n;
      $$ language plv8`);
    const { rows } = await db.query("select recover() as v");
    expect(rows[0].v).toBe(2);
  });
});

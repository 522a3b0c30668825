import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { ensureRole, plv8Database } from "./support";

// plv8.context switches the global object calls run in: each user keeps up to
// plv8.context_cache_size named ones (least recently used dropped), which run no start
// procedure, and the setting cannot change while JavaScript runs.
describe("plv8.context", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await ensureRole(db, "plv8_cx_user");
    await db.query(`
      create function count_up() returns text as $$
        globalThis.n = (globalThis.n || 0) + 1;
        return (globalThis.started ?? 'no start') + ' ' + n;
      $$ language plv8;
      create function start() returns void as $$ globalThis.started = 'started'; $$ language plv8;
      create function switch_inside() returns text as $$
        try { plv8.execute("select set_config('plv8.context', 'other', false)"); return 'switched'; }
        catch (e) { return e.sqlerrcode + ' ' + e.message; }
      $$ language plv8;
      create function names() returns jsonb as $$ select jsonb_agg(e->'contexts') from jsonb_array_elements(plv8_info()) e $$ language sql;
      grant execute on all functions in schema public to public;
    `);
  });
  afterAll(async () => {
    await db.drop();
  });

  async function counts(client: pg.Client, context: string, times: number): Promise<string[]> {
    await client.query(`set plv8.context = '${context}'`);
    const out: string[] = [];
    for (let i = 0; i < times; i++) out.push((await client.query("select count_up() as v")).rows[0].v);
    return out;
  }

  it("gives each named context its own globals, without the start procedure", async () => {
    const client = await db.connect();
    await client.query("set plv8.start_proc = 'start'; set plv8.boot_proc = 'start'");
    expect(await counts(client, "a", 2)).toEqual(["no start 1", "no start 2"]);
    expect(await counts(client, "b", 1)).toEqual(["no start 1"]);
    expect(await counts(client, "", 1)).toEqual(["started 1"]);
    expect(await counts(client, "a", 1)).toEqual(["no start 3"]);
    await client.query("reset plv8.context");
    expect((await client.query("select count_up() as v")).rows[0].v).toBe("started 2");
    await client.end();
  });

  it("refuses to change while a plv8 call is running", async () => {
    const client = await db.connect();
    await client.query("set plv8.context = 'a'");
    const { rows } = await client.query("select switch_inside() as v, current_setting('plv8.context') as cx");
    expect(rows[0]).toEqual({ v: "55006 cannot change plv8.context while a plv8 function is running", cx: "a" });
    await client.end();
  });

  it("keeps the most recently used plv8.context_cache_size contexts per user", async () => {
    const client = await db.connect();
    await client.query("set plv8.context_cache_size = 2");
    await counts(client, "a", 1);
    await counts(client, "b", 1);
    await counts(client, "a", 1);
    await counts(client, "c", 1); // drops b, the least recently used
    expect((await client.query("select names() as v")).rows[0].v).toEqual([["c", "a"]]);
    expect(await counts(client, "a", 1)).toEqual(["no start 3"]);
    expect(await counts(client, "b", 1)).toEqual(["no start 1"]);
    await client.end();
  });

  it("keeps named contexts apart between roles", async () => {
    const client = await db.connect();
    expect(await counts(client, "shared-name", 2)).toEqual(["no start 1", "no start 2"]);
    await client.query("set role plv8_cx_user");
    expect(await counts(client, "shared-name", 1)).toEqual(["no start 1"]);
    await client.end();
  });
});

describe("plv8.context and the resolver", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
    await db.query("create function tiny() returns int as $$ return 1; $$ language plv8");
  });
  afterAll(async () => db.drop());

  const compiles = "select sum((e->'code_cache'->>'hits')::int + (e->'code_cache'->>'misses')::int + (e->'code_cache'->>'rejected')::int)::int as n from jsonb_array_elements(plv8_info()) e";

  it("loads the bundle in a named context only when that context calls the resolver", async () => {
    const client = await db.connect();
    await client.query("select graphql.resolve('{ __typename }')");
    const before = (await client.query(compiles)).rows[0].n;
    await client.query("set plv8.context = 'reporting'");
    expect((await client.query("select tiny() as v")).rows[0].v).toBe(1);
    expect((await client.query(compiles)).rows[0].n).toBe(before);
    const { rows } = await client.query("select graphql.resolve('{ __typename }') as r, graphql._bundle_info() as info");
    expect(rows[0].r).toEqual({ data: { __typename: "Query" } });
    expect(rows[0].info.evaluations).toBe(1);
    expect((await client.query(compiles)).rows[0].n).toBeGreaterThan(before);
    await client.end();
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { plv8Database } from "./support";

// One isolate and context per current user id: SET ROLE and SECURITY DEFINER switch to
// another, so one role never sees or poisons another role's globals.
describe("per-role JavaScript environments", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query(`
      do $$ begin
        if not exists (select 1 from pg_roles where rolname = 'plv8_alice') then create role plv8_alice; end if;
        if not exists (select 1 from pg_roles where rolname = 'plv8_bob') then create role plv8_bob; end if;
      end $$;
      create function set_global(v text) returns void as $$ globalThis.shared = v; $$ language plv8;
      create function get_global() returns text as $$ return typeof shared === 'undefined' ? null : shared; $$ language plv8;
      create function poison() returns void as $$ JSON.stringify = () => 'poisoned'; $$ language plv8;
      create function stringify() returns text as $$ return JSON.stringify({ a: 1 }); $$ language plv8;
      create function definer_get() returns text security definer as $$ return typeof shared === 'undefined' ? null : shared; $$ language plv8;
      grant execute on all functions in schema public to public;
    `);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("keeps globals apart between roles and keeps them across transactions", async () => {
    const client = await db.connect();
    await client.query("set role plv8_alice");
    await client.query("select set_global('alice')");
    await client.query("set role plv8_bob");
    expect((await client.query("select get_global() as v")).rows[0].v).toBeNull();
    await client.query("select set_global('bob')");
    await client.query("set role plv8_alice");
    expect((await client.query("select get_global() as v")).rows[0].v).toBe("alice");
    await client.query("begin; select 1; commit");
    expect((await client.query("select get_global() as v")).rows[0].v).toBe("alice");
    await client.query("reset role");
    expect((await client.query("select get_global() as v")).rows[0].v).toBeNull();
    await client.end();
  });

  it("does not let one role poison built-ins of another", async () => {
    const client = await db.connect();
    await client.query("set role plv8_alice");
    await client.query("select poison()");
    expect((await client.query("select stringify() as v")).rows[0].v).toBe("poisoned");
    await client.query("set role plv8_bob");
    expect((await client.query("select stringify() as v")).rows[0].v).toBe('{"a":1}');
    await client.end();
  });

  it("runs SECURITY DEFINER functions in the owner's environment", async () => {
    const client = await db.connect();
    await client.query("select set_global('owner')");
    await client.query("set role plv8_bob");
    await client.query("select set_global('bob')");
    expect((await client.query("select get_global() as v")).rows[0].v).toBe("bob");
    expect((await client.query("select definer_get() as v")).rows[0].v).toBe("owner");
    await client.end();
  });
});

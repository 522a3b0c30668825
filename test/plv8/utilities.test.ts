import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { pgError, plv8Database } from "./support";

// The extension's SQL-level utilities, settings and procedures.
describe("plv8 utilities and settings", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("reports the same version from SQL and from JavaScript", async () => {
    await db.query("create function js_version() returns text as $$ return plv8.version; $$ language plv8");
    const { rows } = await db.query("select plv8_version() as sql, js_version() as js");
    expect(rows[0].sql).toBe(rows[0].js);
  });

  it("runs plv8.start_proc once when an environment starts, with `this` the global object", async () => {
    const client = await db.connect();
    await client.query(`
      create function init_env() returns void as $$ this.started = (this.started || 0) + 1; plv8.greet = (n) => 'hi ' + n; $$ language plv8;
      create function after_init() returns text as $$ return plv8.greet('there') + ' ' + started; $$ language plv8;
    `);
    await client.query("set plv8.start_proc = 'init_env'");
    await client.query("select plv8_reset()");
    expect((await client.query("select after_init() as v")).rows[0].v).toBe("hi there 1");
    expect((await client.query("select after_init() as v")).rows[0].v).toBe("hi there 1");
    await client.end();
  });

  it("stops a runaway start_proc with 57014 and runs it again on the next call", async () => {
    const client = await db.connect();
    await client.query(`
      create function runaway_init() returns void as $$ if (!plv8.execute("select current_setting('app.ready', true) as r")[0].r) for (;;) {} $$ language plv8;
      create function probe_init() returns text as $$ return 'ran'; $$ language plv8;
    `);
    await client.query("set plv8.start_proc = 'runaway_init'");
    await client.query("select plv8_reset()");
    await client.query("set statement_timeout = '200ms'");
    const err = await pgError(client.query("select probe_init()"));
    expect(err.code).toBe("57014");
    await client.query("reset statement_timeout");
    await client.query("set app.ready = 'yes'");
    expect((await client.query("select probe_init() as v")).rows[0].v).toBe("ran");
    await client.end();
  });

  it("plv8_reset() drops the current user's globals", async () => {
    const client = await db.connect();
    await client.query("do $$ globalThis.kept = 1 $$ language plv8");
    await client.query("select plv8_reset()");
    const err = await pgError(client.query("do $$ kept $$ language plv8"));
    expect(err.message).toBe("ReferenceError: kept is not defined");
    await client.end();
  });

  it("plv8_info() and plv8.memory_usage() describe the heaps", async () => {
    const client = await db.connect();
    await client.query("do $$ $$ language plv8");
    const info = (await client.query("select plv8_info() as v")).rows[0].v;
    expect(info).toHaveLength(1);
    expect(info[0].user).toBe("postgres");
    expect(info[0].heap_size_limit).toBeGreaterThan(0);
    await client.query(
      "create function pg_temp.usage() returns jsonb as $$ return plv8.memory_usage(); $$ language plv8",
    );
    const usage = (await client.query("select pg_temp.usage() as v")).rows[0].v;
    expect(Object.keys(usage).sort()).toEqual([
      "external_memory",
      "heap_size_limit",
      "number_of_native_contexts",
      "total_heap_size",
      "total_physical_size",
      "used_heap_size",
    ]);
    await client.end();
  });

  it("commits and rolls back inside a CALLed procedure, and refuses to in a function", async () => {
    await db.query(`
      create table steps (n int);
      create procedure stepper() language plv8 as $$
        for (let i = 0; i < 4; i++) {
          plv8.execute('insert into steps values ($1)', [i]);
          if (i % 2 == 0) plv8.commit(); else plv8.rollback();
        }
      $$;
      create function not_a_procedure() returns void as $$ plv8.commit(); $$ language plv8;
    `);
    await db.query("call stepper()");
    expect((await db.query("select array_agg(n order by n) as v from steps")).rows[0].v).toEqual([0, 2]);
    const err = await pgError(db.query("select not_a_procedure()"));
    expect(err.code).toBe("2D000");
  });
});

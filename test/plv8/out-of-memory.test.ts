import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { freshDatabase } from "../harness/db";
import { backendPid, fatalLogLines, pgError, plv8Database, privateKb } from "./support";

// An exhausted heap inside a nested call (JS -> SPI -> JS) or a subtransaction still ends only
// the statement; repeated failures leave the backend's memory flat, and the resolver's bundle
// loads again in the fresh isolate.
const grow = "const a = []; for (;;) a.push(new Array(1 << 16).fill(0.5));";

describe("running out of JavaScript heap", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query(`
      create function grow() returns int as $$ ${grow} $$ language plv8;
      create function ok() returns int as $$ return [1, 2, 3].reduce((a, b) => a + b); $$ language plv8;
      create function nested() returns text as $$
        try { plv8.execute('select grow()'); return 'not stopped'; } catch (e) { return 'caught ' + e.message; }
      $$ language plv8;
      create function in_subtransaction() returns text as $$
        try { plv8.subtransaction(() => plv8.execute('select grow()')); return 'not stopped'; } catch (e) { return 'caught ' + e.message; }
      $$ language plv8;
      create function failures(n int) returns int language plpgsql as $p$
        declare failed int := 0;
        begin
          for i in 1..n loop
            begin
              perform grow();
            exception when program_limit_exceeded or insufficient_resources then
              if sqlerrm = 'Out of memory error' then failed := failed + 1; end if;
            end;
          end loop;
          return failed + ok() - 6;
        end $p$;
    `);
  });
  afterAll(async () => {
    await db.drop();
  });

  for (const fn of ["nested", "in_subtransaction"]) {
    it(`ends ${fn}() with an ERROR that JavaScript cannot catch, in the same backend`, async () => {
      const client = await db.connect();
      await client.query("set plv8.memory_limit = 16");
      const pid = await backendPid(client);
      const err = await pgError(client.query(`select ${fn}()`));
      expect(err.code).toBe("53200");
      expect(err.message).toBe("Out of memory error");
      expect((await client.query("select ok() as v, pg_backend_pid() as pid")).rows[0]).toEqual({ v: 6, pid });
      expect(fatalLogLines(pid)).toEqual([]);
      await client.end();
    });
  }

  it("rolls back to a savepoint after the error and goes on", async () => {
    const client = await db.connect();
    await client.query("set plv8.memory_limit = 16");
    await client.query("begin; create table kept (v int); savepoint s");
    const err = await pgError(client.query("select grow()"));
    expect(err.message).toBe("Out of memory error");
    await client.query("rollback to savepoint s; insert into kept select ok(); commit");
    expect((await client.query("select v from kept")).rows).toEqual([{ v: 6 }]);
    await client.end();
  });

  it("keeps the backend's memory flat over repeated failures", async () => {
    const client = await db.connect();
    await client.query("set plv8.memory_limit = 16");
    const pid = await backendPid(client);
    expect((await client.query("select failures(30) as n")).rows[0].n).toBe(30);
    const after30 = privateKb(pid);
    expect((await client.query("select failures(90) as n")).rows[0].n).toBe(90);
    const after120 = privateKb(pid);
    expect(after120).toBeLessThanOrEqual(after30 * 1.1);
    expect(fatalLogLines(pid)).toEqual([]);
    await client.end();
  });
});

describe("the resolver after an out-of-memory reset", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
    await db.query(`comment on schema public is '@graphql({"inflect_names": true})'`);
    await db.query("create function public.answer() returns int stable language sql as 'select 42'");
  });
  afterAll(async () => db.drop());

  it("answers graphql.resolve again in the fresh isolate", async () => {
    const client = await db.connect();
    const pid = await backendPid(client);
    const first = await client.query("select graphql.resolve('{ answer }') as r");
    expect(first.rows[0].r).toEqual({ data: { answer: 42 } });
    const err = await pgError(client.query(`do $$ ${grow} $$ language plv8`));
    expect(err.message).toBe("Out of memory error");
    const again = await client.query("select graphql.resolve('{ answer }') as r, pg_backend_pid() as pid");
    expect(again.rows[0]).toEqual({ r: { data: { answer: 42 } }, pid });
    await client.end();
  });
});

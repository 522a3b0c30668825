import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, pgError, plv8Database } from "./support";

// V8's stack limit must lie inside the backend's stack, so runaway recursion is an ordinary,
// catchable RangeError and never a segfault.
describe("unbounded recursion", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("throws a RangeError that JavaScript can catch", async () => {
    await db.query(`
      create function deep() returns text as $$
        function down(n) { return down(n + 1) + 1; }
        try { down(0); return 'no error'; } catch (e) { return e.constructor.name + ': ' + e.message; }
      $$ language plv8`);
    const { rows } = await db.query("select deep() as v");
    expect(rows[0].v).toBe("RangeError: Maximum call stack size exceeded");
  });

  it("becomes an ERROR when not caught, and the backend answers next", async () => {
    const client = await db.connect();
    const pid = await backendPid(client);
    const err = await pgError(client.query("do $$ function down(n) { return down(n + 1) + 1; } down(0); $$ language plv8"));
    expect(err.message).toBe("RangeError: Maximum call stack size exceeded");
    expect(await backendPid(client)).toBe(pid);
    await client.end();
  });

  it("survives recursion through SQL (JS -> SPI -> JS)", async () => {
    await db.query(`
      create function through_sql(n int) returns int as $$
        return plv8.execute('select through_sql($1) as r', [n + 1])[0].r;
      $$ language plv8`);
    const err = await pgError(db.query("select through_sql(0)"));
    expect(["54001", "XX000"]).toContain(err.code);
    expect(err.message).toMatch(/stack depth limit exceeded|Maximum call stack size exceeded/);
    const { rows } = await db.query("select 1 as one");
    expect(rows[0].one).toBe(1);
  });
});

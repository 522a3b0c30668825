import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, pgError, plv8Database } from "./support";

// Unbounded allocation must end in an ERROR at plv8.memory_limit, never in a crash; the
// isolate is disposed and the next call in the same backend gets a fresh one.
const cases = {
  "an array of objects": "let a = []; for (;;) a.push({ n: a.length, s: 'item ' + a.length });",
  "flat strings": "let a = []; for (;;) a.push(('x' + a.length).repeat(1 << 16).split('').join(''));",
  ArrayBuffers: "let a = []; for (;;) a.push(new ArrayBuffer(1 << 20));",
  "ArrayBuffers behind try/catch": "let a = []; for (;;) { try { a.push(new ArrayBuffer(1 << 20)); } catch (e) {} }",
};

describe("plv8.memory_limit", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("defaults to PLV8's 256 MB", async () => {
    const { rows } = await db.query("select current_setting('plv8.memory_limit') as v");
    expect(rows[0].v).toBe("256MB");
  });

  for (const [name, body] of Object.entries(cases)) {
    it(`ends unbounded allocation of ${name} with an ERROR, and the backend answers next`, async () => {
      const client = await db.connect();
      // A smaller limit than the default keeps the test quick; the mechanism is the same.
      await client.query("set plv8.memory_limit = 64");
      const pid = await backendPid(client);
      await client.query("do $$ globalThis.before = 'set before' $$ language plv8");
      const err = await pgError(client.query(`do $$ ${body} $$ language plv8`));
      expect(err.code).toBe("53200");
      expect(err.message).toMatch(/memory limit/);
      expect(await backendPid(client)).toBe(pid);
      // A fresh isolate: globals of the disposed one are gone, and it works.
      await client.query(
        "create function pg_temp.probe() returns text as $$ return typeof globalThis.before + ':' + [1, 2, 3].map(x => x * 2).join(','); $$ language plv8",
      );
      const { rows } = await client.query("select pg_temp.probe() as v");
      expect(rows[0].v).toBe("undefined:2,4,6");
      await client.end();
    });
  }

  it("stops at the default limit too", async () => {
    const client = await db.connect();
    const pid = await backendPid(client);
    const err = await pgError(client.query("do $$ let a = []; for (;;) a.push(new ArrayBuffer(1 << 22)); $$ language plv8"));
    expect(err.code).toBe("53200");
    expect(err.detail).toContain("256 MB");
    const { rows } = await client.query("select pg_backend_pid() as pid");
    expect(rows[0].pid).toBe(pid);
    await client.end();
  });
});

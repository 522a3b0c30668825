import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import type { TestDatabase } from "../harness/db";
import { churnFunctionSql, plv8Database } from "./support";

// What a backend's V8 heap keeps between calls: the young generation's idle semi-space is given
// back after a call that collected it, and a function's ASCII source is read in place rather than
// copied into the heap.
interface Space {
  size: number;
  physical: number;
}
const spacesSql = "select e->'spaces' as spaces from jsonb_array_elements(plv8_info()) e where e->>'user' = current_user";

describe("V8 heap footprint", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    const filler = (text: string) => `/* ${text.repeat(150_000)} */`;
    await db.query(`
      ${churnFunctionSql};
      create function big_ascii() returns int as $$ ${filler("ab")} return 42; $$ language plv8;
      create function big_utf8() returns text as $$ ${filler("é")} return 'ünïcode'; $$ language plv8;
    `);
  });
  afterAll(async () => {
    await db.drop();
  });

  const newSpace = async (client: pg.Client) => (await client.query<{ spaces: Record<string, Space> }>(spacesSql)).rows[0]!.spaces.new_space!.size;
  const churn = async (client: pg.Client, n: number) => (await client.query("select churn($1) as kept", [n])).rows[0].kept;

  it("gives back the idle semi-space of the young generation after a call that collected it, a second after V8 started", async () => {
    const client = await db.connect();
    // About 100 MB of short-lived objects: many young collections in one call, the backend's
    // first in V8.
    const started = Date.now();
    const kept = await churn(client, 2_000_000);
    const tookMs = Date.now() - started;
    expect(kept).toBe(64);
    // That call did not wait for the collection (both semi-spaces are still there), unless it
    // ended a second or more after V8 started, which only a very busy machine makes it do.
    if (tookMs < 900) expect(await newSpace(client)).toBeGreaterThan(1 << 20);
    // The next call, the backend's second, gives the space back (after the wait, so would any
    // call: the last collection, if any, is more than a second old); the environment goes on.
    await client.query("select pg_sleep(1.2)");
    expect(await churn(client, 10)).toBe(10);
    // One semi-space of 1 MB committed, not two.
    expect(await newSpace(client)).toBeLessThanOrEqual(1 << 20);
    await client.end();
  });

  it("gives it back again after a later call, once a second has passed since the last time", async () => {
    const client = await db.connect();
    await client.query("set plv8.heap_reduce_interval = 1");
    // V8 starts at the backend's first call; the second is counted from then.
    expect(await churn(client, 10)).toBe(10);
    for (let i = 0; i < 2; i++) {
      await client.query("select pg_sleep(1.2)");
      expect(await churn(client, 2_000_000)).toBe(64);
      expect(await newSpace(client)).toBeLessThanOrEqual(1 << 20);
    }
    await client.end();
  });

  it("keeps both semi-spaces with plv8.heap_reduce_interval = 0", async () => {
    const client = await db.connect();
    await client.query("set plv8.heap_reduce_interval = 0");
    expect(await churn(client, 2_000_000)).toBe(64);
    expect(await newSpace(client)).toBeGreaterThan(1 << 20);
    await client.end();
  });

  it("runs long function bodies, ASCII ones without a copy in the heap", async () => {
    const client = await db.connect();
    expect((await client.query("select big_ascii() as v")).rows[0].v).toBe(42);
    const spaces = (await client.query<{ spaces: Record<string, Space> }>(spacesSql)).rows[0]!.spaces;
    // A 300 kB string in the heap would sit in a large object space (young or old).
    expect(spaces.large_object_space!.size + spaces.new_large_object_space!.size).toBe(0);
    expect((await client.query("select big_utf8() as v")).rows[0].v).toBe("ünïcode");
    await client.end();
  });
});

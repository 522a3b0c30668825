import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, churnFunctionSql, plv8Database, privateKb } from "./support";

// 100,000 calls in one backend, each using execute, a prepared plan, a cursor and a caught SQL
// error, must not grow the backend's private memory: after 100,000 calls it stays within 10%
// of what it was after 10,000.
describe("memory over many calls", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query(`
      create table kv (k int primary key, v text);
      insert into kv select g, 'v' || g from generate_series(1, 100) g;
      create function work(i int) returns int as $$
        const r = plv8.execute('select v from kv where k = $1', [i % 100 + 1]);
        const plan = plv8.prepare('select k, v from kv where k <= $1', ['int']);
        const rows = plan.execute([3]);
        const cursor = plan.cursor([5]);
        let n = 0, row;
        while ((row = cursor.fetch())) n++;
        cursor.close();
        plan.free();
        try {
          plv8.execute('select 1 / 0');
        } catch (e) {
          if (e.sqlerrcode === '22012') n++;
        }
        return r.length + rows.length + n;
      $$ language plv8;
      ${churnFunctionSql}`);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("keeps private memory flat from 10,000 to 100,000 calls", async () => {
    const client = await db.connect();
    const pid = await backendPid(client);
    const batch = "select sum(work(g))::int as s from generate_series(1, 10000) g";
    // Both readings are taken just after a memory-reducing collection, so that the young
    // generation's idle half, given back or not depending on when the last one ran, does not
    // count as growth. One runs after a call only when a young collection ran since the last one,
    // a second has passed (the wait is the test's own) and plv8.heap_reduce_interval calls have
    // been made: the settling call makes sure of all three.
    const settled = async () => {
      await client.query("select pg_sleep(1.1)");
      await client.query("set plv8.heap_reduce_interval = 1");
      expect((await client.query("select churn(200000) as kept")).rows[0].kept).toBe(64);
      await client.query("reset plv8.heap_reduce_interval");
      return privateKb(pid);
    };
    const first = await client.query(batch);
    expect(first.rows[0].s).toBe(10000 * 10);
    const after10k = await settled();
    for (let i = 0; i < 9; i++) {
      const { rows } = await client.query(batch);
      expect(rows[0].s).toBe(10000 * 10);
    }
    const after100k = await settled();
    expect(after100k).toBeLessThanOrEqual(after10k * 1.1);
    await client.end();
  });
});

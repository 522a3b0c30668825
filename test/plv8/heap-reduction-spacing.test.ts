import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import type { TestDatabase } from "../harness/db";
import { churnFunctionSql, plv8Database } from "./support";

// The memory-reducing collections of a backend: the first one after its second call, before much
// code is optimized; then, since each one lets go of optimized code that the calls after it
// compile again and a busy backend takes the memory back at once, while calls keep coming without
// a quiet second between them the least time to the next doubles; a quiet second brings it back
// to one second.
interface Reductions {
  count: number;
  spacing_ms: number;
}
const reductionsSql = "select e->'heap_reductions' as r from jsonb_array_elements(plv8_info()) e where e->>'user' = current_user";

describe("heap reductions of a busy backend", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    // Garbage enough for a young collection, then time the test controls, inside the call: the
    // backend stays busy however fast the machine is.
    await db.query(`
      ${churnFunctionSql};
      create function churn_then_sleep(n int, seconds float8) returns int as $$
        const kept = plv8.find_function('churn')(n);
        plv8.execute('select pg_sleep($1)', [seconds]);
        return kept;
      $$ language plv8;
    `);
  });
  afterAll(async () => {
    await db.drop();
  });

  const reductions = async (client: pg.Client) => (await client.query<{ r: Reductions }>(reductionsSql)).rows[0]!.r;

  it("collects the first call's garbage after the second call, however soon it comes", async () => {
    const client = await db.connect();
    // The first call (V8 starts in it) leaves garbage and does not wait for a collection, unless
    // it ended a second or more after V8 started, which only a very busy machine makes it do.
    const started = Date.now();
    expect((await client.query("select churn(200000) as kept")).rows[0].kept).toBe(64);
    const tookMs = Date.now() - started;
    const first = (await reductions(client)).count;
    if (tookMs < 900) expect(first).toBe(0);
    // The second call, right after it, collects.
    expect((await client.query("select churn(200000) as kept")).rows[0].kept).toBe(64);
    expect((await reductions(client)).count).toBe(first + 1);
    await client.end();
  });

  it("doubles the spacing after each reduction while calls come back to back, and a quiet second resets it", async () => {
    const client = await db.connect();
    await client.query("set plv8.heap_reduce_interval = 1");
    // Six calls of at least 0.6 s: the first reduction comes at the end of the second call (or
    // of the first, if that one ended a second after V8 started), the next at least two seconds
    // after it, both within 3.6 s.
    let widestGapMs = 0;
    let lastEnd = 0;
    for (let i = 0; i < 6; i++) {
      if (lastEnd > 0) widestGapMs = Math.max(widestGapMs, Date.now() - lastEnd);
      expect((await client.query("select churn_then_sleep(200000, 0.6) as kept")).rows[0].kept).toBe(64);
      lastEnd = Date.now();
    }
    const busy = await reductions(client);
    expect(busy.count).toBeGreaterThanOrEqual(2);
    // Without a quiet second between the calls (a stalled test process could make one), each
    // reduction has doubled the spacing from one second.
    if (widestGapMs < 900) expect(busy.spacing_ms).toBe(1000 * 2 ** busy.count);
    // A quiet second, then a call: the spacing is back to one second, and the call reduces (more
    // than a second has passed since the last reduction, and its churn ran a young collection).
    await client.query("select pg_sleep(1.2)");
    expect((await client.query("select churn(200000) as kept")).rows[0].kept).toBe(64);
    const after = await reductions(client);
    expect(after.spacing_ms).toBe(1000);
    expect(after.count).toBe(busy.count + 1);
    await client.end();
  });
});

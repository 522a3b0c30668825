import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, pgError, plv8Database, waitUntilRunning } from "./support";

// JavaScript that never calls back into PostgreSQL cannot reach CHECK_FOR_INTERRUPTS(); the
// handler must still stop it, and a cancel must not be swallowed by a JS try/catch.
const tightLoop = "do $$ /*tight*/ let n = 0; for (;;) { n++; } $$ language plv8";
const sleepInTry =
  "do $$ /*sleepy*/ for (;;) { try { plv8.execute('select pg_sleep(10)'); } catch (e) { plv8.elog(NOTICE, 'swallowed ' + e.sqlerrcode); } } $$ language plv8";
const subtransactionInTry =
  "do $$ /*subtx*/ for (;;) { try { plv8.subtransaction(function () { plv8.execute('select pg_sleep(10)'); }); } catch (e) {} } $$ language plv8";

describe("interrupts stop running JavaScript", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
  });
  afterAll(async () => {
    await db.drop();
  });

  for (const [name, sql] of [
    ["a tight loop", tightLoop],
    ["pg_sleep inside a JS try/catch", sleepInTry],
    ["pg_sleep inside a subtransaction inside try/catch", subtransactionInTry],
  ] as const) {
    it(`statement_timeout cancels ${name} with 57014 and the backend lives on`, async () => {
      const client = await db.connect();
      const notices: string[] = [];
      client.on("notice", (n) => notices.push(n.message ?? ""));
      const pid = await backendPid(client);
      await client.query("set statement_timeout = '300ms'");
      const err = await pgError(client.query(sql));
      expect(err.code).toBe("57014");
      expect(err.message).toBe("canceling statement due to statement timeout");
      expect(notices.filter((n) => n.startsWith("swallowed"))).toEqual([]);
      await client.query("reset statement_timeout");
      expect(await backendPid(client)).toBe(pid);
      const { rows } = await client.query("select plv8_version() as v");
      expect(rows[0].v).toMatch(/^\d+\.\d+\.\d+$/);
      await client.end();
    });

    it(`pg_cancel_backend cancels ${name} with 57014 and the backend lives on`, async () => {
      const client = await db.connect();
      const observer = await db.connect();
      const pid = await backendPid(client);
      const running = pgError(client.query(sql));
      const marker = sql.slice(sql.indexOf("/*"), sql.indexOf("*/") + 2);
      await waitUntilRunning(observer, pid, marker);
      await new Promise((r) => setTimeout(r, 100));
      await observer.query("select pg_cancel_backend($1)", [pid]);
      const err = await running;
      expect(err.code).toBe("57014");
      expect(err.message).toBe("canceling statement due to user request");
      expect(await backendPid(client)).toBe(pid);
      const { rows } = await client.query("do $$ plv8.elog(NOTICE, 'still here') $$ language plv8");
      expect(rows).toEqual([]);
      await client.end();
      await observer.end();
    });
  }

  it("pg_terminate_backend ends a backend running a tight loop cleanly", async () => {
    const client = await db.connect();
    const observer = await db.connect();
    const pid = await backendPid(client);
    const running = pgError(client.query(tightLoop));
    await waitUntilRunning(observer, pid, "/*tight*/");
    await observer.query("select pg_terminate_backend($1)", [pid]);
    const err = await running;
    expect(err.code).toBe("57P01");
    // The server reaps it as a normal exit; a crash would fail the run in the harness.
    for (let i = 0; i < 200; i++) {
      const { rows } = await observer.query("select 1 from pg_stat_activity where pid = $1", [pid]);
      if (rows.length === 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const { rows } = await observer.query("select count(*)::int as n from pg_stat_activity where pid = $1", [pid]);
    expect(rows[0].n).toBe(0);
    await observer.end();
  });
});

import { readdirSync, readFileSync } from "node:fs";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, pgError, plv8Database, waitUntilRunning } from "./support";

// The thread that stops running JavaScript must not wake on a timer while the backend's
// JavaScript is idle (a platform keeps hundreds of such backends), and must still stop a loop
// at once when the backend is cancelled after it has fallen asleep.

/** Context switches so far of the backend's watchdog thread (voluntary and not). */
function watchdogSwitches(pid: number): number {
  const threads = readdirSync(`/proc/${pid}/task`).filter((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() === "plv8 watchdog");
  expect(threads).toHaveLength(1);
  const status = readFileSync(`/proc/${pid}/task/${threads[0]}/status`, "utf8");
  return [...status.matchAll(/ctxt_switches:\s+(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

const tightLoop = "do $$ /*tight*/ let n = 0; for (;;) { n++; } $$ language plv8";

describe("the watchdog", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query("create function one() returns int language plv8 as 'return 1'");
  });
  afterAll(async () => {
    await db.drop();
  });

  it("sleeps while the backend's JavaScript is idle, even right after many calls", async () => {
    const client = await db.connect();
    const pid = await backendPid(client);
    for (let i = 0; i < 500; i++) await client.query("select one()");
    const before = watchdogSwitches(pid);
    // Half a second without JavaScript: a watchdog polling every few ms would switch ~100 times.
    await client.query("select pg_sleep(0.5)");
    expect(watchdogSwitches(pid) - before).toBeLessThanOrEqual(2);
    await client.end();
  });

  const asleep = async (client: pg.Client) => {
    await client.query("select one()");
    // Past the watchdog's one-second look with no call: it now sleeps until a call or a signal.
    await client.query("select pg_sleep(1.5)");
  };

  /** A backend whose watchdog has fallen asleep, running a tight loop, and a second session. */
  const loopAfterSleep = async () => {
    const client = await db.connect();
    const observer = await db.connect();
    const pid = await backendPid(client);
    await asleep(client);
    const running = pgError(client.query(tightLoop));
    await waitUntilRunning(observer, pid, "/*tight*/");
    return { client, observer, pid, running };
  };

  it("stops a loop on pg_cancel_backend after falling asleep", async () => {
    const { client, observer, pid, running } = await loopAfterSleep();
    await observer.query("select pg_cancel_backend($1)", [pid]);
    const err = await running;
    expect(err.code).toBe("57014");
    expect(err.message).toBe("canceling statement due to user request");
    expect((await client.query("select one() as v")).rows[0].v).toBe(1);
    expect(await backendPid(client)).toBe(pid);
    await client.end();
    await observer.end();
  });

  it("stops a loop at statement_timeout and at plv8.execution_timeout after falling asleep", async () => {
    const client = await db.connect();
    await asleep(client);
    await client.query("set statement_timeout = '300ms'");
    const cancelled = await pgError(client.query(tightLoop));
    expect(cancelled.code).toBe("57014");
    expect(cancelled.message).toBe("canceling statement due to statement timeout");
    await client.query("reset statement_timeout");
    await asleep(client);
    await client.query("set plv8.execution_timeout = 1");
    const timedOut = await pgError(client.query(tightLoop));
    expect(timedOut.code).toBe("57014");
    expect(timedOut.message).toBe("execution timeout exceeded");
    expect((await client.query("select one() as v")).rows[0].v).toBe(1);
    await client.end();
  });

  it("ends a backend on pg_terminate_backend after falling asleep", async () => {
    const { observer, pid, running } = await loopAfterSleep();
    // With a timeout, pg_terminate_backend answers true once the backend has exited.
    const { rows } = await observer.query("select pg_terminate_backend($1, 60000) as ended", [pid]);
    expect(rows[0].ended).toBe(true);
    expect((await running).code).toBe("57P01");
    await observer.end();
  });
});

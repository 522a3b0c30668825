import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, fatalLogLines, pgError, plv8Database } from "./support";

// Some of V8 10.2's own checks are fatal where later versions throw (a FixedArray past its
// maximum length). Such a failure must end the one connection with a FATAL, never trap: a
// trapped backend makes the postmaster restart the whole cluster and drop every connection.
describe("a fatal check inside V8", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("ends only its own connection", async () => {
    const bystander = await db.connect();
    const bystanderPid = await backendPid(bystander);
    await bystander.query("begin; create temporary table kept (v int); insert into kept values (1)");

    const victim = await db.connect();
    victim.on("error", () => {});
    const pid = await backendPid(victim);
    const err = await pgError(victim.query("do $$ 'x'.repeat(2 ** 28).split(''); $$ language plv8"));
    expect(err.code).toBe("XX000");
    expect(err.message).toBe("JavaScript engine stopped on a fatal error");
    expect(fatalLogLines(pid).join("\n")).toContain("JavaScript engine stopped on a fatal error");
    await victim.end().catch(() => {});

    // The other connection, mid-transaction, was not touched.
    const rows = await bystander.query("select v, pg_backend_pid() as pid from kept");
    expect(rows.rows).toEqual([{ v: 1, pid: bystanderPid }]);
    await bystander.query("commit");
    await bystander.end();
  });
});

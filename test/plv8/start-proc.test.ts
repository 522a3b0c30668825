import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import type { TestDatabase } from "../harness/db";
import { ensureRole, pgError, plv8Database } from "./support";

// plv8.start_proc is user-settable, so it must never run code the current user may not run,
// nor run a session's choice with a SECURITY DEFINER owner's rights; plv8.boot_proc is
// superuser-only and wins over it.
describe("plv8.start_proc and plv8.boot_proc", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await ensureRole(db, "plv8_sp_user");
    await db.query(`
      create schema admin;
      grant usage on schema admin to plv8_sp_user;
      create schema mine authorization plv8_sp_user;
      create function admin.start() returns void as $$ globalThis.started = 'admin.start'; $$ language plv8;
      create function admin.boot() returns void as $$ globalThis.started = 'admin.boot'; $$ language plv8;
      create function admin.private_start() returns void as $$ globalThis.started = 'private'; $$ language plv8;
      revoke all on function admin.private_start() from public;
      create function public.started() returns text as $$ return globalThis.started ?? 'none'; $$ language plv8;
      create function public.definer_started() returns text security definer as $$ return globalThis.started ?? 'none'; $$ language plv8;
      set role plv8_sp_user;
      create function mine.escalate() returns void as $$ globalThis.started = 'escalated'; $$ language plv8;
      reset role;
    `);
  });
  afterAll(async () => {
    await db.drop();
  });

  async function session(user?: string): Promise<{ client: pg.Client; warnings: string[] }> {
    const client = await db.connect();
    const warnings: string[] = [];
    client.on("notice", (n) => {
      if (n.severity === "WARNING") warnings.push(n.message ?? "");
    });
    if (user) await client.query(`set role ${user}`);
    return { client, warnings };
  }

  it("lets any role set and reset start_proc, and runs it with EXECUTE", async () => {
    const { client, warnings } = await session("plv8_sp_user");
    await client.query("set plv8.start_proc = 'admin.start'");
    expect((await client.query("select started() as v")).rows[0].v).toBe("admin.start");
    await client.query("reset plv8.start_proc");
    expect((await client.query("show plv8.start_proc")).rows[0]["plv8.start_proc"]).toBe("");
    expect(warnings).toEqual([]);
    await client.end();
  });

  // [what, session role (none: the superuser), start_proc, function called, its answer, warnings]
  // PLV8 quotes its lookup's error after "failed to find js function", and takes a function the
  // role may not execute for one it did not find; the owner check is this handler's own.
  const notRun = (name: string) => `start procedure ${name} is not run for role "${superuser}"`;
  let superuser = "";
  const cases: [string, string | undefined, string, string, string, () => string[]][] = [
    ["skips a start procedure the role may not execute", "plv8_sp_user", "admin.private_start", "started", "none",
      () => ["failed to find js function admin.private_start"]],
    ["skips a missing start procedure", "plv8_sp_user", "admin.no_such_function", "started", "none",
      () => ['failed to find js function function "admin.no_such_function" does not exist']],
    ["skips a missing start procedure named by its signature", "plv8_sp_user", "admin.no_such_function()", "started", "none",
      () => ['failed to find js function function "admin.no_such_function()" does not exist']],
    ["skips a start procedure that is not a plv8 function", "plv8_sp_user", "pg_catalog.now", "started", "none",
      () => ["failed to find js function pg_catalog.now"]],
    // The superuser's environment is created by the definer call: the user's code must not run there.
    ["never runs a user's start procedure with a SECURITY DEFINER owner's rights", "plv8_sp_user", "mine.escalate",
      "definer_started", "none", () => [notRun("mine.escalate")]],
    ["runs the user's own start procedure in the user's own environment", "plv8_sp_user", "mine.escalate", "started",
      "escalated", () => []],
    // As a database owner's ALTER DATABASE ... SET plv8.start_proc would.
    ["never runs a less privileged role's start procedure in a superuser's session", undefined, "mine.escalate",
      "started", "none", () => [notRun("mine.escalate")]],
    ["runs a superuser's start procedure in a SECURITY DEFINER call", "plv8_sp_user", "admin.start", "definer_started",
      "admin.start", () => []],
  ];
  for (const [what, role, proc, fn, answer, expectedWarnings] of cases) {
    it(`${what}${expectedWarnings().length ? ", with a warning" : ""}`, async () => {
      superuser = (await db.query("select current_user as u")).rows[0].u;
      const { client, warnings } = await session(role);
      await client.query(`set plv8.start_proc = '${proc}'`);
      expect((await client.query(`select ${fn}() as v`)).rows[0].v).toBe(answer);
      expect(warnings).toEqual(expectedWarnings());
      await client.end();
    });
  }

  it("keeps boot_proc to superusers", async () => {
    const { client } = await session("plv8_sp_user");
    const err = await pgError(client.query("set plv8.boot_proc = 'admin.boot'"));
    expect(err.code).toBe("42501");
    expect(err.message).toBe('permission denied to set parameter "plv8.boot_proc"');
    await client.end();
  });

  it("runs boot_proc instead of start_proc when both are set", async () => {
    const { client, warnings } = await session();
    await client.query("set plv8.boot_proc = 'admin.boot'");
    await client.query("set plv8.start_proc = 'admin.start'");
    expect((await client.query("select started() as v")).rows[0].v).toBe("admin.boot");
    await client.query("reset plv8.boot_proc");
    await client.query("select plv8_reset()");
    expect((await client.query("select started() as v")).rows[0].v).toBe("admin.start");
    expect(warnings).toEqual([]);
    await client.end();
  });
});

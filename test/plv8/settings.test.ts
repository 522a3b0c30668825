import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, ensureRole, pgError, plv8Database } from "./support";

// PLV8's remaining settings: plv8.execution_timeout ends a script on its own clock, and
// plv8.icu_data is accepted while Intl works from the system ICU.
describe("plv8.execution_timeout", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await ensureRole(db, "plv8_settings_user");
  });
  afterAll(async () => {
    await db.drop();
  });

  it("defaults to PLV8's 300 seconds and is for superusers to set", async () => {
    const client = await db.connect();
    expect((await client.query("show plv8.execution_timeout")).rows[0]["plv8.execution_timeout"]).toBe("5min");
    await client.query("set role plv8_settings_user");
    const err = await pgError(client.query("set plv8.execution_timeout = 10"));
    expect(err.code).toBe("42501");
    await client.end();
  });

  for (const [name, body] of [
    ["a tight loop", "for (;;) {}"],
    ["a loop that swallows every exception", "for (;;) { try { for (;;) {} } catch (e) {} }"],
    ["a loop between database calls", "for (;;) { try { plv8.execute('select 1'); } catch (e) {} }"],
  ] as const) {
    it(`ends ${name} with PLV8's error, independently of statement_timeout`, async () => {
      const client = await db.connect();
      const pid = await backendPid(client);
      await client.query("set plv8.execution_timeout = 1; set statement_timeout = 0");
      const err = await pgError(client.query(`do $$ ${body} $$ language plv8`));
      expect(err.code).toBe("57014");
      expect(err.message).toBe("execution timeout exceeded");
      expect((await client.query("select pg_backend_pid() as pid")).rows[0].pid).toBe(pid);
      const { rows } = await client.query("do $$ plv8.execute('select 1') $$ language plv8");
      expect(rows).toEqual([]);
      await client.end();
    });
  }
});

describe("plv8.icu_data and Intl", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query(`
      create function intl() returns text[] as $$
        return [
          (1234567.891).toLocaleString('de-DE'),
          new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'full' }).format(new Date(0)),
          new Date(0).toLocaleDateString('fr-FR', { timeZone: 'UTC' }),
          ['z', 'ä', 'a'].sort(new Intl.Collator('de').compare).join(''),
          ['z', 'ä', 'a'].sort(new Intl.Collator('sv').compare).join(''),
        ];
      $$ language plv8`);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("accepts plv8.icu_data and formats and collates by locale", async () => {
    const client = await db.connect();
    await client.query("set plv8.icu_data = '/usr/share/icu'");
    const { rows } = await client.query("select intl() as v");
    expect(rows[0].v).toEqual(["1.234.567,891", "Thursday, January 1, 1970", "01/01/1970", "aäz", "azä"]);
    await client.end();
  });
});

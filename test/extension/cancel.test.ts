// graphql.resolve turns errors into GraphQL error answers, but a statement timeout or a cancel
// (SQLSTATE 57014) propagates as PostgreSQL's own error, and the backend answers the next call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

describe("cancel and timeout inside graphql.resolve", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
    await db.query(`comment on schema public is '@graphql({"inflect_names": true})'`);
    await db.query("create function public.slow_answer() returns int stable language sql as 'select 42 from pg_sleep(30)'");
    await db.query("create function public.quick_answer() returns int stable language sql as 'select 42'");
  });
  afterAll(async () => db.drop());

  it("propagates a statement timeout with SQLSTATE 57014", async () => {
    const client = await db.connect();
    try {
      const pid = (await client.query("select pg_backend_pid() as pid")).rows[0].pid;
      await client.query("set statement_timeout = '300ms'");
      await expect(client.query("select graphql.resolve('{ slowAnswer }')")).rejects.toMatchObject({
        code: "57014",
        message: "canceling statement due to statement timeout",
      });
      await client.query("reset statement_timeout");
      const { rows } = await client.query("select graphql.resolve('{ quickAnswer }') as r, pg_backend_pid() as pid");
      expect(rows[0].r).toEqual({ data: { quickAnswer: 42 } });
      expect(rows[0].pid).toBe(pid);
    } finally {
      await client.end();
    }
  });

  it("propagates pg_cancel_backend with SQLSTATE 57014", async () => {
    const client = await db.connect();
    try {
      const pid = (await client.query("select pg_backend_pid() as pid")).rows[0].pid;
      const running = client.query("select graphql.resolve('{ slowAnswer }')");
      const outcome = running.then(
        () => null,
        (e) => e,
      );
      // Cancel once the request is really running.
      for (let i = 0; i < 200; i++) {
        const { rows } = await db.query("select count(*)::int as n from pg_stat_activity where pid = $1 and wait_event = 'PgSleep'", [pid]);
        if (rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await db.query("select pg_cancel_backend($1)", [pid]);
      expect(await outcome).toMatchObject({ code: "57014", message: "canceling statement due to user request" });
      const { rows } = await client.query("select graphql.resolve('{ quickAnswer }') as r, pg_backend_pid() as pid");
      expect(rows[0].r).toEqual({ data: { quickAnswer: 42 } });
      expect(rows[0].pid).toBe(pid);
    } finally {
      await client.end();
    }
  });
});

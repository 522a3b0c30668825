// Logs queries of one tenant against another and against the server process: the caller's SQL of
// `analytics/endpoints/logs.all` must not show or end another tenant's running query, must not
// leave session settings for the next tenant's query, and must not end the server process by
// ending its own session. The platform runs as a process of its own, so an unhandled error
// ending it is seen as such.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { clusterUrl } from "../management/support";
import { everyKindOfRequest, logs, startChildPlatform, type ChildPlatform } from "./childPlatform";
import { makeTenant, until, type Tenant } from "./hostileWorld";

let platform: ChildPlatform;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  platform = await startChildPlatform("logs_isolation");
  a = await makeTenant(platform, "logs-a@example.com", "logs-a");
  b = await makeTenant(platform, "logs-b@example.com", "logs-b");
  expect(await everyKindOfRequest(platform.baseUrl, a)).toEqual({});
}, 300_000);
afterAll(async () => {
  await platform?.close();
}, 120_000);

describe("logs queries of two tenants", () => {
  it("tenant B neither sees tenant A's running query nor ends it", async () => {
    const locker = new pg.Client({ connectionString: clusterUrl(clusterInfo(), `${platform.platformDatabase}_logs`) });
    locker.on("error", () => {});
    await locker.connect();
    let running: Promise<{ status: number; body: any }> | undefined;
    try {
      await locker.query("select pg_advisory_lock(7301999)");
      // A's query waits for the test's lock, its text naming a marker B looks for.
      running = logs(a, "select 'hostile-logs-marker' as m, pg_advisory_lock_shared(7301999)::text as l");
      const waiting = "select count(*)::int as n from pg_stat_activity where query like '%hostile-logs-marker%' and wait_event_type = 'Lock' and pid <> pg_backend_pid()";
      await until("A's logs query waits for the lock", async () => (await locker.query(waiting)).rows[0].n > 0);

      const seen = await logs(b, "select query from pg_stat_activity where query like '%' || 'hostile-logs' || '-marker%'");
      if (seen.status === 200) expect(JSON.stringify(seen.body.result)).not.toContain("hostile-logs-marker");
      else expect(seen.status).toBe(400);
      const ended = await logs(b, "select pg_terminate_backend(pid) as t from pg_stat_activity where query like '%' || 'hostile-logs' || '-marker%'");
      if (ended.status === 200) expect(ended.body.result.filter((r: { t: boolean }) => r.t)).toEqual([]);
      else expect(ended.status).toBe(400);
    } finally {
      await locker.query("select pg_advisory_unlock_all()").catch(() => {});
      await locker.end();
    }
    const answer = await running!;
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.result).toEqual([{ m: "hostile-logs-marker", l: "" }]);
  });

  it("a setting one tenant's query makes does not reach the next tenant's query", async () => {
    const set = "select set_config('search_path', 'pg_catalog', false) as s";
    const first = await logs(b, set);
    expect([200, 400]).toContain(first.status);
    // In parallel too, so every pooled session gets it.
    await Promise.all([1, 2, 3, 4].map(() => logs(b, set)));
    const count = "select count(*)::int as n from edge_logs";
    const answers = [await logs(a, count), ...(await Promise.all([1, 2, 3, 4].map(() => logs(a, count))))];
    expect(answers.map((r) => [r.status, r.status === 200 ? "" : JSON.stringify(r.body)])).toEqual(answers.map(() => [200, ""]));
  });

  it("a logs query that ends its own session leaves the server process serving every kind of request", async () => {
    const r = await logs(b, "select pg_terminate_backend(pg_backend_pid())").catch((e: Error) => ({ status: e.message, body: undefined }));
    expect([200, 400]).toContain(r.status);
    expect(platform.alive(), platform.server.output().slice(-2000)).toBe(true);
    expect(await everyKindOfRequest(platform.baseUrl, a)).toEqual({});
    expect(await everyKindOfRequest(platform.baseUrl, b)).toEqual({});
    expect(platform.alive()).toBe(true);
  });
});

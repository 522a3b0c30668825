// The server process against what tenants do to the sessions it holds. Logs queries: the caller's
// SQL of `analytics/endpoints/logs.all` must not show or end another tenant's running query, must
// not leave session settings for the next tenant's query, and must not end the server process by
// ending its own session. Every backend the server holds ended at once (its pools, the change
// feed's listener, the logs writer and reader, the data API and requests in flight): the process
// stays up and serves every kind of request after. The platform runs as a process of its own
// (an unhandled 'error' event ends it, and is seen as such) without a statement timeout, so the
// requests held by the test's locks wait for them alone.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { clusterUrl, graphqlAt } from "../management/support";
import { everyKindOfRequest, logs, startChildPlatform, type ChildPlatform } from "./childPlatform";
import { makeTenant, until, type Tenant } from "./hostileWorld";

let platform: ChildPlatform;
let a: Tenant;
let b: Tenant;

/** Retries once: a request already on its way when its connection went may fail; the next may not. */
async function afterwards(): Promise<Record<string, number | string>> {
  const first = await everyKindOfRequest(platform.baseUrl, a);
  return Object.keys(first).length === 0 ? first : everyKindOfRequest(platform.baseUrl, a);
}

beforeAll(async () => {
  platform = await startChildPlatform("server_process", ["--statement-timeout", "0"]);
  a = await makeTenant(platform, "logs-a@example.com", "logs-a");
  b = await makeTenant(platform, "logs-b@example.com", "logs-b");
  const setup = new pg.Client({ connectionString: clusterUrl(clusterInfo(), a.ref) });
  await setup.connect();
  await setup.query("create table public.held (id int); insert into public.held values (1); grant select on public.held to anon");
  await setup.end();
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

});

describe("backends ended under the server", () => {
  it("survives every backend it holds being terminated, and serves every kind of request after", async () => {
    const admin = new pg.Client({ connectionString: clusterUrl(clusterInfo()) });
    await admin.connect();
    const locker = new pg.Client({ connectionString: clusterUrl(clusterInfo(), a.ref) });
    await locker.connect();
    try {
      // Requests in flight: the SQL one held by the test's lock on the table it reads.
      await locker.query("begin; lock table public.held in access exclusive mode");
      const anon = (await a.call("GET", `/v1/projects/${a.ref}/api-keys`)).body[0].api_key as string;
      const inFlight = [
        a.call("POST", `/v1/projects/${a.ref}/database/query`, { query: "select count(*)::int as n from public.held" }),
        graphqlAt(`${platform.baseUrl}/project/${a.ref}/graphql/v1`, anon, "{ heldCollection { edges { node { id } } } }"),
      ].map((r) => r.then((x) => x.status, (e: Error) => e.message));
      const databases = [platform.platformDatabase, `${platform.platformDatabase}_logs`, a.ref];
      const waiting = "select count(*)::int as n from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'";
      await until("the SQL request waits for the lock", async () => (await admin.query(waiting, [a.ref])).rows[0].n >= 1);

      const mine = [(await locker.query("select pg_backend_pid() as pid")).rows[0].pid];
      const { rows } = await admin.query(
        "select pid from pg_stat_activity where datname = any($1) and pid <> all($2) and backend_type = 'client backend'",
        [databases, mine],
      );
      expect(rows.length).toBeGreaterThan(3);
      await admin.query("select pg_terminate_backend(pid) from unnest($1::int[]) pid", [rows.map((r) => r.pid)]);
      await until("the terminated backends are gone", async () => (await admin.query("select count(*)::int as n from pg_stat_activity where pid = any($1)", [rows.map((r) => r.pid)])).rows[0].n === 0);
      await locker.query("rollback");

      const answers = await Promise.all(inFlight);
      for (const status of answers) expect(typeof status, `a request in flight got no answer: ${status}`).toBe("number");
      expect(platform.alive(), platform.server.output().slice(-2000)).toBe(true);
      expect(await afterwards()).toEqual({});
      expect(platform.alive(), platform.server.output().slice(-2000)).toBe(true);
    } finally {
      await locker.end().catch(() => {});
      await admin.end();
    }
  });
});

// Last: on a server without the fix, it ends the process.
describe("a logs query that ends its own session", () => {
  it("leaves the server process serving every kind of request", async () => {
    const r = await logs(b, "select pg_terminate_backend(pg_backend_pid())").catch((e: Error) => ({ status: e.message, body: undefined }));
    expect([200, 400]).toContain(r.status);
    expect(platform.alive(), platform.server.output().slice(-2000)).toBe(true);
    expect(await everyKindOfRequest(platform.baseUrl, a)).toEqual({});
    expect(await everyKindOfRequest(platform.baseUrl, b)).toEqual({});
    expect(platform.alive()).toBe(true);
  });
});

// Every connection the server holds ended at once (pg_terminate_backend on the platform's pool,
// the change feed's listener, the logs writer and reader, the data API's pools and the sessions
// of requests in flight): the process must stay up, the requests in flight must be answered, and
// every kind of request must succeed afterwards. The platform runs as a process of its own
// without a statement timeout, so the requests held by the test's lock wait for it alone.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { clusterUrl, graphqlAt } from "../management/support";
import { everyKindOfRequest, startChildPlatform, type ChildPlatform } from "./childPlatform";
import { makeTenant, until, type Tenant } from "./hostileWorld";

let platform: ChildPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startChildPlatform("lost_backends", ["--statement-timeout", "0"]);
  tenant = await makeTenant(platform, "lost-backends@example.com", "lost-backends");
  const setup = new pg.Client({ connectionString: clusterUrl(clusterInfo(), tenant.ref) });
  await setup.connect();
  await setup.query("create table public.held (id int); insert into public.held values (1); grant select on public.held to anon");
  await setup.end();
  expect(await everyKindOfRequest(platform.baseUrl, tenant)).toEqual({});
}, 300_000);
afterAll(async () => {
  await platform?.close();
}, 120_000);

/** Retries once: a request already on its way when its connection went may fail; the next may not. */
async function afterwards(): Promise<Record<string, number | string>> {
  const first = await everyKindOfRequest(platform.baseUrl, tenant);
  return Object.keys(first).length === 0 ? first : everyKindOfRequest(platform.baseUrl, tenant);
}

it("survives every backend it holds being terminated, and serves every kind of request after", async () => {
  const admin = new pg.Client({ connectionString: clusterUrl(clusterInfo()) });
  await admin.connect();
  const locker = new pg.Client({ connectionString: clusterUrl(clusterInfo(), tenant.ref) });
  await locker.connect();
  try {
    // Requests in flight: the SQL one held by the test's lock on the table it reads.
    await locker.query("begin; lock table public.held in access exclusive mode");
    const anon = (await tenant.call("GET", `/v1/projects/${tenant.ref}/api-keys`)).body[0].api_key as string;
    const inFlight = [
      tenant.call("POST", `/v1/projects/${tenant.ref}/database/query`, { query: "select count(*)::int as n from public.held" }),
      graphqlAt(`${platform.baseUrl}/project/${tenant.ref}/graphql/v1`, anon, "{ heldCollection { edges { node { id } } } }"),
    ].map((r) => r.then((x) => x.status, (e: Error) => e.message));
    const databases = [platform.platformDatabase, `${platform.platformDatabase}_logs`, tenant.ref];
    const waiting = "select count(*)::int as n from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'";
    await until("the SQL request waits for the lock", async () => (await admin.query(waiting, [tenant.ref])).rows[0].n >= 1);

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

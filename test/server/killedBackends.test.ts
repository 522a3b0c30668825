// A backend terminated under a request's statement: a query runs again on another connection
// and answers as if nothing happened; a mutation, once sent, is not run again (nothing proves it
// did not run), so it fails with 503 and its change is made at most once.
import { afterAll, beforeAll, expect, it } from "vitest";
import { activePids, post, reflectsTables, runsMutations, startTestServer, until, withTableLocked, type TestServer } from "./support";

let server: TestServer;
let ready = false;

beforeAll(async () => {
  server = await startTestServer({
    schema: `
      create table public.item (id int primary key, label text);
      insert into public.item values (1, 'one');
      create table public.counter (id int primary key, n int not null);
      insert into public.counter values (1, 0);`,
    config: { statementTimeoutMs: 0, poolSize: 2 },
  });
  ready = (await reflectsTables(server, "itemCollection")) && (await runsMutations(server, "counterCollection"));
});
afterAll(async () => server.close());

/** Waits until one statement of the server runs (other than `not`), and returns its pid. */
async function oneRunning(not: number[] = []): Promise<number> {
  let pid: number | undefined;
  const found = await until(async () => {
    const pids = (await activePids(server)).filter((p) => !not.includes(p));
    pid = pids.length === 1 ? pids[0] : undefined;
    return pid !== undefined;
  });
  expect(found).toBe(true);
  return pid!;
}

async function terminate(pid: number): Promise<void> {
  const { rows } = await server.db.query("select pg_terminate_backend($1, 5000) as done", [pid]);
  expect(rows[0].done).toBe(true);
}

it("runs a query again on another connection when its backend is terminated while it runs", async (ctx) => {
  if (!ready) ctx.skip();
  const database = server.running.app.database;
  const before = database.lostConnectionRetries;
  // The request is held in an object: a promise returned from the locked section would be
  // awaited there, before the lock is let go.
  const { request } = await withTableLocked(server, "public.item", async () => {
    const request = post(server.endpoint, server.anonKey, { query: "{ itemCollection { edges { node { label } } } }" });
    const first = await oneRunning();
    await terminate(first);
    // Run again, the query waits on the lock in another backend.
    await oneRunning([first]);
    return { request };
  });
  expect(await request).toEqual({ status: 200, json: { data: { itemCollection: { edges: [{ node: { label: "one" } }] } } } });
  expect(database.lostConnectionRetries).toBe(before + 1);
});

it("does not run a mutation again once it was sent: 503, and the change is not made twice", async (ctx) => {
  if (!ready) ctx.skip();
  const database = server.running.app.database;
  const before = database.lostConnectionRetries;
  const mutation = { query: "mutation { updatecounterCollection(set: {n: 1}, filter: {id: {eq: 1}}) { affectedCount } }" };
  const { request } = await withTableLocked(server, "public.counter", async () => {
    const request = post(server.endpoint, server.serviceKey, mutation);
    await terminate(await oneRunning());
    return { request };
  });
  expect((await request).status).toBe(503);
  expect(await until(async () => (await activePids(server)).length === 0)).toBe(true);
  expect((await server.db.query("select n from public.counter")).rows[0].n).toBe(0);
  expect(database.lostConnectionRetries).toBe(before);
  // The server answers the next request on a connection of its own.
  expect((await post(server.endpoint, server.serviceKey, mutation)).json).toEqual({ data: { updatecounterCollection: { affectedCount: 1 } } });
});

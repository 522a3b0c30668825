// Upgrading the extension as hosted projects do (drop + create in one transaction) while bounded
// loopback HTTP load runs against the server: no request may fail.
import { afterAll, beforeAll, expect, it } from "vitest";
import { post, reflectsTables, startTestServer, type TestServer } from "./support";

let server: TestServer;
let query = "{ __typename }";

beforeAll(async () => {
  server = await startTestServer({
    schema: `
      comment on schema public is e'@graphql({"introspection": true})';
      create table public.item (id int primary key, label text not null);
      insert into public.item select i, 'item ' || i from generate_series(1, 20) as i;`,
    config: { poolSize: 4 },
  });
  if (await reflectsTables(server, "itemCollection")) query = "{ itemCollection(first: 5) { edges { node { id label } } } }";
});
afterAll(async () => server.close());

const workers = 4;
const maxRequests = 4000;
const maxMillis = 60_000;
const upgrades = 3;

it("fails no request while the extension is dropped and re-created", async (ctx) => {
  if (!server.extension) ctx.skip();
  const failures: string[] = [];
  let sent = 0;
  let stop = false;
  const started = Date.now();

  const worker = async () => {
    while (!stop && sent < maxRequests && Date.now() - started < maxMillis) {
      sent += 1;
      try {
        const { status, json } = await post(server.endpoint, server.anonKey, { query });
        if (status !== 200 || json.errors !== undefined) failures.push(`${status} ${JSON.stringify(json)}`);
      } catch (e) {
        failures.push(String(e));
      }
    }
  };
  const load = Promise.all(Array.from({ length: workers }, worker));

  const admin = await server.db.connect();
  const sentDuring: number[] = [];
  try {
    for (let i = 0; i < upgrades; i++) {
      const before = sent;
      await new Promise((r) => setTimeout(r, 300));
      await admin.query("begin");
      await admin.query("drop extension pg_graphql");
      await admin.query("create extension pg_graphql");
      await new Promise((r) => setTimeout(r, 100)); // requests queue up behind the open transaction
      await admin.query("commit");
      await new Promise((r) => setTimeout(r, 300));
      sentDuring.push(sent - before);
    }
  } finally {
    stop = true;
    await load;
    await admin.end();
  }

  expect(failures.slice(0, 5)).toEqual([]);
  for (const n of sentDuring) expect(n).toBeGreaterThan(0);
  const { rows } = await server.db.query("select installed_version from pg_available_extensions where name = 'pg_graphql'");
  expect(rows[0].installed_version).not.toBeNull();
});

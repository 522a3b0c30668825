// Graceful shutdown: closing the server lets a request already in flight finish with its answer,
// while requests arriving after the close are turned away.
import { afterAll, beforeAll, expect, it } from "vitest";
import { post, reflectsTables, startTestServer, type TestServer } from "./support";

let server: TestServer;
let ready = false;

beforeAll(async () => {
  server = await startTestServer({
    schema: `
      create table public.item (id int primary key, label text not null);
      insert into public.item values (1, 'one'), (2, 'two'), (3, 'three');`,
  });
  ready = await reflectsTables(server, "itemCollection");
});
afterAll(async () => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("finishes an in-flight request before it stops", async (ctx) => {
  if (!ready) ctx.skip();
  const admin = await server.db.connect();
  // The lock holds the request inside the database until the test lets it go.
  await admin.query("begin");
  await admin.query("lock table public.item in access exclusive mode");
  const inflight = post(server.endpoint, server.anonKey, { query: "{ itemCollection { edges { node { label } } } }" });
  await sleep(300);

  const closed = server.running.app.close();
  await sleep(200);
  const late = await fetch(server.endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", apikey: server.anonKey },
    body: JSON.stringify({ query: "{ __typename }" }),
  }).then(
    (r) => r.status,
    () => "refused",
  );
  expect([503, "refused"]).toContain(late);

  await admin.query("commit");
  await admin.end();
  const answer = await inflight;
  expect(answer.status).toBe(200);
  expect(answer.json.data.itemCollection.edges.map((e: { node: { label: string } }) => e.node.label)).toEqual(["one", "two", "three"]);
  await closed;
});

// Exact numbers over HTTP: variables travel from the request body (or query string) to the
// database as the client wrote them, so integers past 2^53 and 40-digit decimals keep every digit;
// variables nested past the limit are a 400.
import { afterAll, beforeAll, expect, it } from "vitest";
import { reflectsTables, runsMutations, startTestServer, type TestServer } from "./support";

let server: TestServer;
let ready = false;
const big = "9007199254740993"; // 2^53 + 1: JSON.parse makes it ...992
const precise = "1234567890.123456789012345678901234567890"; // 40 digits

beforeAll(async () => {
  server = await startTestServer({
    schema: `
      comment on schema public is e'@graphql({"inflect_names": true})';
      create table public.item (id int primary key, big bigint, amount numeric);
      insert into public.item values (1, 1, 0), (2, 9007199254740992, 0);
      grant all on public.item to anon, service_role;`,
  });
  ready = (await reflectsTables(server, "itemCollection")) && (await runsMutations(server, "ItemCollection"));
});
afterAll(async () => server.close());

/** Posts the body text exactly as given: JSON.stringify of a JS object could not hold the digits. */
async function postText(body: string): Promise<{ status: number; json: any }> {
  const response = await fetch(server.endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", apikey: server.anonKey },
    body,
  });
  return { status: response.status, json: await response.json() };
}

it("updates and filters a BigInt past 2^53 with every digit", async (ctx) => {
  if (!ready) ctx.skip();
  const update = await postText(`{"query": "mutation($n: BigInt!) { updateItemCollection(set: {big: $n}, filter: {id: {eq: 1}}) { affectedCount records { big } } }", "variables": {"n": ${big}}}`);
  expect(update.status).toBe(200);
  expect(update.json).toEqual({ data: { updateItemCollection: { affectedCount: 1, records: [{ big }] } } });
  expect((await server.db.query("select big::text from public.item where id = 1")).rows).toEqual([{ big }]);

  const filtered = await postText(`{"query": "query($n: BigInt!) { itemCollection(filter: {big: {eq: $n}}) { edges { node { id } } } }", "variables": {"n": ${big}}}`);
  expect(filtered.json).toEqual({ data: { itemCollection: { edges: [{ node: { id: 1 } }] } } });

  const search = new URLSearchParams({
    query: "query($n: BigInt!) { itemCollection(filter: {big: {eq: $n}}) { edges { node { id } } } }",
    variables: `{"n": ${big}}`,
  });
  const viaGet = await fetch(`${server.endpoint}?${search}`, { headers: { apikey: server.anonKey } });
  expect(await viaGet.json()).toEqual({ data: { itemCollection: { edges: [{ node: { id: 1 } }] } } });
});

it("keeps the 40 digits of a BigFloat (a string, as pg_graphql requires)", async (ctx) => {
  if (!ready) ctx.skip();
  const mutation = "mutation($a: BigFloat!) { updateItemCollection(set: {amount: $a}, filter: {id: {eq: 2}}) { records { amount } } }";
  const update = await postText(`{"query": "${mutation}", "variables": {"a": "${precise}"}}`);
  expect(update.json).toEqual({ data: { updateItemCollection: { records: [{ amount: precise }] } } });
  expect((await server.db.query("select amount::text from public.item where id = 2")).rows).toEqual([{ amount: precise }]);
  const asNumber = await postText(`{"query": "${mutation}", "variables": {"a": ${precise}}}`);
  expect(asNumber.json).toEqual({ data: null, errors: [{ message: "Invalid input for BigFloat type. String required" }] });
});

it("refuses an Int variable past 2^31 with pg_graphql's message", async (ctx) => {
  if (!ready) ctx.skip();
  const r = await postText('{"query": "query($n: Int!) { itemCollection(first: $n) { edges { node { id } } } }", "variables": {"n": 2147483648}}');
  expect(r.status).toBe(200);
  expect(r.json).toEqual({ data: null, errors: [{ message: "Invalid input for Int type" }] });
});

it("answers variables nested 3,000 levels deep with a 400 and a message", async () => {
  const deep = `${'{"a":'.repeat(2999)}{}${"}".repeat(2999)}`;
  const r = await postText(`{"query": "{ __typename }", "variables": ${deep}}`);
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ message: '"variables" nest 3000 levels deep; at most 64 are accepted' });
  const search = new URLSearchParams({ query: "{ __typename }", variables: `${"[".repeat(500)}${"]".repeat(500)}` });
  const viaGet = await fetch(`${server.endpoint}?${search}`, { headers: { apikey: server.anonKey } });
  expect(viaGet.status).toBe(400);
});

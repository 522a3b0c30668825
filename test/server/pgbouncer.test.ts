// Behind pgbouncer in transaction mode (Debian's package, run as a non-root user): with named
// prepared statements off the server answers every request, still with one statement per
// request, and a statement past the timeout is cancelled through the pooler.
import { afterAll, beforeAll, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { hasPgbouncer, startPgbouncer, type Pgbouncer } from "../harness/pgbouncer";
import { serve, type Running } from "../../server/src/serve";
import { post, reflectsTables, signToken, startTestServer, type TestServer } from "./support";

let server: TestServer;
let bouncer: Pgbouncer | undefined;
let behind: Running;
let ready = false;

beforeAll(async () => {
  server = await startTestServer({
    schema: `
      create extension if not exists pg_stat_statements;
      create table public.item (id int primary key, label text);
      insert into public.item values (1, 'one'), (2, 'two');`,
  });
  ready = hasPgbouncer() && (await reflectsTables(server, "itemCollection"));
  if (!hasPgbouncer()) console.warn("pgbouncer is not installed (scripts/deps.sh installs it); skipping");
  if (!ready) return;
  bouncer = await startPgbouncer(clusterInfo(), server.db.name, 2);
  behind = await serve({
    ...server.running.app.config,
    databaseUrl: `postgresql://authenticator@/${server.db.name}?host=${encodeURIComponent(bouncer.host)}&port=${bouncer.port}`,
    preparedStatements: false,
    poolSize: 6,
    // Only the statement held by the test's lock may reach it, on however busy a machine.
    statementTimeoutMs: 5000,
    port: 0,
  });
});
afterAll(async () => {
  await behind?.app.close();
  await bouncer?.stop();
  await server.close();
});

const items = { query: "{ itemCollection { edges { node { label } } } }" };
const labels = { data: { itemCollection: { edges: [{ node: { label: "one" } }, { node: { label: "two" } }] } } };

it("answers concurrent requests of every role over three server connections per two of pgbouncer's", async (ctx) => {
  if (!ready) ctx.skip();
  const endpoint = `${behind.baseUrl}/graphql/v1`;
  const user = await signToken({ role: "authenticated", sub: "u1" });
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0 ? post(endpoint, server.anonKey, items) : i % 3 === 1 ? post(endpoint, server.serviceKey, items) : post(endpoint, server.anonKey, items, user),
    ),
  );
  for (const answer of answers) expect(answer).toEqual({ status: 200, json: labels });
});

it("still sends one statement per request", async (ctx) => {
  if (!ready) ctx.skip();
  const endpoint = `${behind.baseUrl}/graphql/v1`;
  await server.db.query("select pg_stat_statements_reset(0, (select oid from pg_database where datname = current_database()), 0)");
  for (let i = 0; i < 10; i++) expect((await post(endpoint, server.anonKey, items)).json).toEqual(labels);
  const { rows } = await server.db.query(`
    select s.query, s.calls::int as calls from pg_stat_statements s
     where s.toplevel and s.dbid = (select oid from pg_database where datname = current_database())
       and s.userid <> 'postgres'::regrole`);
  expect(rows.reduce((n, r) => n + r.calls, 0)).toBe(10);
  for (const row of rows) expect(row.query).toContain("graphql._resolve_text");
});

it("cancels a statement past the timeout through pgbouncer", async (ctx) => {
  if (!ready) ctx.skip();
  const endpoint = `${behind.baseUrl}/graphql/v1`;
  const admin = await server.db.connect();
  await admin.query("begin");
  await admin.query("lock table public.item in access exclusive mode");
  const answer = await post(endpoint, server.anonKey, items);
  await admin.query("commit");
  await admin.end();
  expect(answer.json).toEqual({ data: null, errors: [{ message: "The request was cancelled: it ran longer than the statement timeout (5000 ms)" }] });
  expect((await post(endpoint, server.anonKey, items)).json).toEqual(labels);
});

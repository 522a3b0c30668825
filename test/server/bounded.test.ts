// Bounded work per request: a statement past the timeout is cancelled and answered with a
// GraphQL error, a client that goes away has its statement cancelled (its connection is not lost
// to the pool), documents past the limits are refused, and a pooled connection whose backend
// died is replaced without failing the request.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { OperationTypeNode } from "graphql";
import { afterAll, beforeAll, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { serve, type Running } from "../../server/src/serve";
import { activePids, post, reflectsTables, startTestServer, until, withTableLocked, type TestServer } from "./support";

let server: TestServer;
let patient: Running;
let ready = false;

beforeAll(async () => {
  server = await startTestServer({
    schema: `
      create table public.item (id int primary key, label text);
      insert into public.item values (1, 'one');`,
    config: { statementTimeoutMs: 300, limits: { maxDocumentLength: 2000, maxDepth: 4, maxFields: 20, maxVariablesDepth: 8 } },
  });
  // The same database without a timeout and with two connections.
  patient = await serve({ ...server.running.app.config, statementTimeoutMs: 0, poolSize: 2, port: 0 });
  ready = await reflectsTables(server, "itemCollection");
});
afterAll(async () => {
  await patient?.app.close();
  await server.close();
});

const items = { query: "{ itemCollection { edges { node { label } } } }" };

/** Statements of the server's role currently running in this database. */
const running = async (): Promise<number> => (await activePids(server)).length;

/** Holds the item table locked (so reading it waits) while `body` runs. */
const withItemsLocked = <T>(body: () => Promise<T>): Promise<T> => withTableLocked(server, "public.item", body);

it("cancels a statement past the timeout and answers a GraphQL error", async (ctx) => {
  if (!ready) ctx.skip();
  const answer = await withItemsLocked(() => post(server.endpoint, server.anonKey, items));
  expect(answer).toEqual({
    status: 200,
    json: { data: null, errors: [{ message: "The request was cancelled: it ran longer than the statement timeout (300 ms)" }] },
  });
  expect(await running()).toBe(0);
  expect((await post(server.endpoint, server.anonKey, items)).json).toEqual({ data: { itemCollection: { edges: [{ node: { label: "one" } }] } } });
  const metrics = await (await fetch(`${server.running.baseUrl}/metrics`)).text();
  expect(metrics).toContain("pg_graphql_statement_timeouts_total 1");
});

it("cancels the statement of a client that goes away, so the pool is not exhausted", async (ctx) => {
  if (!ready) ctx.skip();
  const endpoint = `${patient.baseUrl}/graphql/v1`;
  await withItemsLocked(async () => {
    // Three times the pool's two connections: each must come back when its client leaves.
    for (let i = 0; i < 3; i++) {
      const leaving = new AbortController();
      const request = fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", apikey: server.anonKey },
        body: JSON.stringify(items),
        signal: leaving.signal,
      }).catch((e: Error) => e.name);
      expect(await until(async () => (await running()) === 1)).toBe(true);
      leaving.abort();
      expect(await request).toBe("AbortError");
      expect(await until(async () => (await running()) === 0)).toBe(true);
    }
    // The table is still locked, but a request that does not read it finds a connection.
    expect((await post(endpoint, server.anonKey, { query: "{ __typename }" })).json).toEqual({ data: { __typename: "Query" } });
  });
});

it("does not run the statement of a client that left while waiting for a connection", async (ctx) => {
  if (!ready) ctx.skip();
  const endpoint = `${patient.baseUrl}/graphql/v1`;
  const pool = patient.app.database.pool;
  const leaving = (controller: AbortController) =>
    fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", apikey: server.anonKey },
      body: JSON.stringify(items),
      signal: controller.signal,
    }).catch((e: Error) => e.name);
  await withItemsLocked(async () => {
    const [a, b, c] = [new AbortController(), new AbortController(), new AbortController()];
    const requests = [leaving(a), leaving(b)];
    expect(await until(async () => (await running()) === 2)).toBe(true);
    requests.push(leaving(c));
    expect(await until(() => pool.waitingCount === 1)).toBe(true);
    c.abort();
    a.abort();
    // A's connection is closed after its cancel; the one made for C's turn is given back unused.
    expect(await until(() => pool.waitingCount === 0 && pool.idleCount === 1)).toBe(true);
    expect(await running()).toBe(1);
    b.abort();
    expect(await Promise.all(requests)).toEqual(["AbortError", "AbortError", "AbortError"]);
    expect(await until(async () => (await running()) === 0)).toBe(true);
  });
});

it("refuses documents past the limits with a GraphQL error, before the database", async () => {
  const cases: Array<[string, string]> = [
    ["{ a { b { c { d { e } } } } }", "The query nests 5 levels deep; at most 4 are accepted"],
    [`{ ${Array.from({ length: 21 }, (_, i) => `a${i}: __typename`).join(" ")} }`, "The query selects 21 fields (aliases included); at most 20 are accepted"],
    [`{ __typename }${" ".repeat(2000)}`, "The document is 2014 characters long; at most 2000 are accepted"],
  ];
  for (const [query, message] of cases) {
    expect(await post(server.endpoint, server.anonKey, { query })).toEqual({ status: 200, json: { data: null, errors: [{ message }] } });
  }
});

it("runs a request again on a fresh connection when the pooled backend had died", async (ctx) => {
  if (!server.extension) ctx.skip();
  // The server without a statement timeout: the fresh backends load the resolver first, which
  // on a loaded machine can take longer than the other server's 300 ms.
  const database = patient.app.database;
  const warm = () => database.resolve(OperationTypeNode.QUERY, "anon", { role: "anon" }, ["public"], { query: "{ __typename }", variables: null, operationName: null });
  await Promise.all([warm(), warm(), warm(), warm()]);
  const before = database.unsentRetries;
  // Terminated (and waited for) while this process's event loop is blocked: the pool still
  // holds the dead connections when the next request takes one.
  const info = clusterInfo();
  execFileSync(join(info.bindir, "psql"), [
    "-h", info.host, "-p", String(info.port), "-U", "postgres", "-d", server.db.name, "-qAt", "-c",
    "select pg_terminate_backend(pid, 5000) from pg_stat_activity where usename = 'authenticator' and datname = current_database()",
  ]);
  const outcomes = await Promise.all([warm(), warm(), warm(), warm()]);
  for (const outcome of outcomes) expect(outcome).toEqual({ kind: "result", body: '{"data": {"__typename": "Query"}}' });
  expect(database.unsentRetries).toBeGreaterThan(before);
});

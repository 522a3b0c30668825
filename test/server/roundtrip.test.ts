// One request, one round trip: pg_stat_statements shows exactly one top-level statement in the
// database per GraphQL request, whichever role the request runs as.
import { afterAll, beforeAll, expect, it } from "vitest";
import { graphql, signToken, startTestServer, type TestServer } from "./support";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ schema: "create extension if not exists pg_stat_statements" });
});
afterAll(async () => server.close());

it("sends a single statement per request", async (ctx) => {
  if (!server.extension) ctx.skip();
  const user = await signToken({ role: "authenticated", sub: "00000000-0000-4000-8000-000000000001" });
  const requests = [
    { apiKey: server.anonKey },
    { apiKey: server.serviceKey },
    { apiKey: server.anonKey, token: user },
  ];
  for (const r of requests) await graphql(server, "{ __typename }", r); // warm the pool
  // Only this database's entries: other test files share the cluster's statistics.
  await server.db.query("select pg_stat_statements_reset(0, (select oid from pg_database where datname = current_database()), 0)");

  const rounds = 5;
  for (let i = 0; i < rounds; i++) {
    for (const r of requests) {
      const result = await graphql(server, "{ __typename }", r);
      expect(result).toEqual({ data: { __typename: "Query" } });
    }
  }

  const { rows } = await server.db.query(`
    select s.query, s.calls::int as calls
      from pg_stat_statements s
     where s.toplevel
       and s.dbid = (select oid from pg_database where datname = current_database())
       and s.userid <> 'postgres'::regrole`);
  expect(rows.length).toBeGreaterThan(0);
  const total = rows.reduce((n, r) => n + r.calls, 0);
  expect(total).toBe(rounds * requests.length);
  for (const row of rows) expect(row.query).toContain("graphql._resolve_text");
});

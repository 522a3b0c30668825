// graphql.resolve inside PostgreSQL: one statement per root field whatever the nesting, and the
// per-backend caches (schema, compiled operations, prepared plans) observed through
// graphql._bundle_info().
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

const NESTED = `query Nested($first: Int) {
  accountCollection(first: $first) { edges { node { email blogCollection { edges { node { name commentCollection { totalCount edges { node { body } } } } } } } } }
  blogCollection { totalCount }
}`;

describe("graphql.resolve in PostgreSQL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query(`
      create extension pg_graphql cascade;
      create extension pg_stat_statements;
      comment on schema public is '@graphql({"inflect_names": true})';
      create table account(id int primary key, email text not null);
      create table blog(id int primary key, account_id int not null references account(id), name text not null);
      create table comment(id int primary key, blog_id int not null references blog(id), body text not null);
      comment on table comment is '@graphql({"totalCount": {"enabled": true}})';
      comment on table blog is '@graphql({"totalCount": {"enabled": true}})';
      insert into account select i, 'user' || i || '@x.com' from generate_series(1, 10) i;
      insert into blog select i, 1 + i % 10, 'blog ' || i from generate_series(1, 30) i;
      insert into comment select i, 1 + i % 30, 'comment ' || i from generate_series(1, 90) i;
    `);
  });
  afterAll(async () => db.drop());

  const info = async (client: pg.Client) => (await client.query("select graphql._bundle_info() as info")).rows[0].info;
  const resolve = async (client: pg.Client, query: string, variables: unknown = {}) =>
    (await client.query("select graphql.resolve($1, $2::jsonb) as r", [query, JSON.stringify(variables)])).rows[0].r;

  it("runs one statement per root field, however deep the nesting", async () => {
    const client = await db.connect();
    try {
      await client.query("set pg_stat_statements.track = 'all'");
      await resolve(client, NESTED, { first: 10 }); // warm the caches
      // Only this database's entries: other test files share the cluster's statistics.
      await client.query("select pg_stat_statements_reset(0, (select oid from pg_database where datname = current_database()), 0)");
      const answer = await resolve(client, NESTED, { first: 10 });
      expect(answer.errors).toBeUndefined();
      expect(answer.data.accountCollection.edges).toHaveLength(10);
      expect(answer.data.accountCollection.edges[0].node.blogCollection.edges[0].node.commentCollection.totalCount).toBe(3);
      expect(answer.data.blogCollection.totalCount).toBe(30);
      const { rows } = await client.query(
        "select sum(calls)::int as calls from pg_stat_statements where not toplevel and query like '%as \"result\"%' " +
          "and dbid = (select oid from pg_database where datname = current_database())",
      );
      expect(rows[0].calls).toBe(2);
    } finally {
      await client.end();
    }
  });

  it("reuses compiled operations and prepared plans, and counts the hits", async () => {
    const client = await db.connect();
    try {
      await resolve(client, NESTED, { first: 1 });
      const before = await info(client);
      await resolve(client, NESTED, { first: 1 });
      await resolve(client, NESTED, { first: 2 });
      const after = await info(client);
      expect(after.operationCacheHits - before.operationCacheHits).toBe(2);
      expect(after.compiledCacheHits - before.compiledCacheHits).toBe(1);
      // New values, same plan shape: the rendered statements are re-bound, not generated again.
      expect(after.sqlCacheHits - before.sqlCacheHits).toBe(1);
      // Different variable values give the same statements: their prepared plans are reused.
      expect(after.preparedPlanMisses).toBe(before.preparedPlanMisses);
      expect(after.preparedPlanHits - before.preparedPlanHits).toBe(4);
    } finally {
      await client.end();
    }
  });

  it("checks variables on every request, a repeated valid text included", async () => {
    const client = await db.connect();
    try {
      const query = "query Q($first: Int!) { accountCollection(first: $first) { edges { node { id } } } }";
      const answers = [];
      for (let i = 0; i < 2; i++) {
        answers.push(await resolve(client, query, { first: "two" }));
        answers.push(await resolve(client, query, { first: [2] }));
        answers.push(await resolve(client, query, { first: 2 }));
      }
      const [wrongType, list, ok] = answers;
      expect(wrongType.errors).toHaveLength(1);
      expect(list.errors).toHaveLength(1);
      expect(ok.data.accountCollection.edges).toHaveLength(2);
      // The second round answers exactly as the first, from the caches.
      expect(answers.slice(3)).toEqual(answers.slice(0, 3));
      const variablesNotObject = await client.query("select graphql.resolve($1, '[1]'::jsonb) as r", [query]);
      expect(variablesNotObject.rows[0].r.errors).toHaveLength(1);
    } finally {
      await client.end();
    }
  });

  it("reloads the schema after DDL, and not before", async () => {
    const client = await db.connect();
    try {
      await resolve(client, "{ __typename }");
      const before = await info(client);
      await resolve(client, "{ __typename }");
      expect((await info(client)).schemaLoads).toBe(before.schemaLoads);
      await client.query("create table extra(id int primary key)");
      const answer = await resolve(client, "{ extraCollection { edges { node { id } } } }");
      expect(answer).toEqual({ data: { extraCollection: { edges: [] } } });
      expect((await info(client)).schemaLoads).toBe(before.schemaLoads + 1);
    } finally {
      await client.end();
    }
  });

  it("answers an object of thousands of members, nested in a page", async () => {
    const client = await db.connect();
    try {
      const members = Array.from({ length: 3000 }, (_, i) => `m${i}: ${i % 2 === 0 ? "id" : "email"}`).join(" ");
      const answer = await resolve(client, `{ accountCollection(first: 2) { edges { node { ${members} } } } }`);
      expect(answer.errors).toBeUndefined();
      const nodes = answer.data.accountCollection.edges.map((e: { node: Record<string, unknown> }) => e.node);
      expect(nodes.map((n: Record<string, unknown>) => Object.keys(n).length)).toEqual([3000, 3000]);
      expect([nodes[1].m0, nodes[1].m1, nodes[1].m2998, nodes[1].m2999]).toEqual([2, "user2@x.com", 2, "user2@x.com"]);
    } finally {
      await client.end();
    }
  });

  it("answers an error raised while executing with data null", async () => {
    const client = await db.connect();
    try {
      await client.query("create function public._boom(rec public.account) returns int immutable language sql as $$ select 1/0 $$");
      const answer = await resolve(client, "{ accountCollection { edges { node { boom } } } }");
      expect(answer).toEqual({ data: null, errors: [{ message: "division by zero" }] });
    } finally {
      await client.end();
    }
  });
});

// graphql._resolve_text, the text sibling of graphql.resolve that the HTTP server calls, answers
// the same document. "The same" here means: its text is JSON, and that text cast to jsonb equals
// (jsonb `=`, exact for numbers) graphql.resolve's answer for the same request on the same data.
// Key order, spacing and the spelling of numbers may differ (jsonb stores keys in its own order
// and prints numbers as numeric, e.g. 1e+20 as 100000000000000000000); the values may not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { freshDatabase, type TestDatabase } from "../harness/db";

interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown> | string;
  operationName?: string;
}

const cases: Case[] = [
  { name: "typename", query: "{ __typename }" },
  {
    name: "nested page",
    query: `{ accountCollection(first: 2, orderBy: [{ id: DescNullsLast }]) { totalCount pageInfo { hasNextPage endCursor }
             edges { cursor node { id nodeId email postCollection(first: 1) { edges { node { id title } } } } } } }`,
  },
  {
    name: "filter by variable",
    query: "query Q($id: Int!) { accountCollection(filter: { id: { eq: $id } }) { edges { node { email } } } }",
    variables: { id: 2 },
  },
  { name: "operation name picks one", query: "query A { __typename } query B { accountCollection { totalCount } }", operationName: "B" },
  { name: "parse error", query: "{ accountCollection { " },
  { name: "unknown field", query: "{ accountCollection { edges { node { nope } } } }" },
  { name: "bad variables", query: "query Q($id: Int!) { __typename }", variables: "[1]" },
  { name: "missing operation name", query: "query A { __typename } query B { __typename }" },
  {
    name: "insert",
    query: `mutation { insertIntoAccountCollection(objects: [{ id: 10, email: "j@x.test" }]) { affectedCount records { id email } } }`,
  },
  {
    name: "update",
    query: `mutation { updateAccountCollection(set: { email: "z@x.test" }, filter: { id: { eq: 1 } }) { affectedCount records { id email } } }`,
  },
  { name: "delete", query: `mutation { deleteFromPostCollection(filter: { id: { eq: 1 } }) { affectedCount records { id } } }` },
  {
    name: "failing mutation (unique violation)",
    query: `mutation { insertIntoAccountCollection(objects: [{ id: 1, email: "dup@x.test" }]) { affectedCount } }`,
  },
];

describe("graphql._resolve_text and graphql.resolve", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
    await db.query(`
      create table account(id int primary key, email text not null unique);
      create table post(id int primary key, account_id int not null references account(id), title text);
      insert into account select i, 'a' || i || '@x.test' from generate_series(1, 3) i;
      insert into post select i, 1 + i % 3, 'post ' || i from generate_series(1, 6) i;
      comment on schema public is '@graphql({"inflect_names": true})';
      comment on table account is '@graphql({"totalCount": {"enabled": true}})';
      create role text_caller;
      grant select, insert, update, delete on account, post to text_caller;`);
    client = await db.connect();
    await client.query("set role text_caller");
  });
  afterAll(async () => {
    await client?.end();
    await db.drop();
    await db.query("drop role if exists text_caller").catch(() => {});
  });

  // Each call runs on the same data: mutations are rolled back after each.
  async function answer(fn: "resolve" | "_resolve_text", c: Case): Promise<string> {
    const variables = typeof c.variables === "string" ? c.variables : JSON.stringify(c.variables ?? {});
    await client.query("begin");
    try {
      const { rows } = await client.query(`select graphql.${fn}($1, $2::jsonb, $3)::text as answer`, [
        c.query,
        variables,
        c.operationName ?? null,
      ]);
      return rows[0].answer as string;
    } finally {
      await client.query("rollback");
    }
  }

  it.each(cases)("answers $name the same", async (c) => {
    const viaJsonb = await answer("resolve", c);
    const viaText = await answer("_resolve_text", c);
    const { rows } = await client.query("select $1::jsonb = $2::jsonb as same", [viaText, viaJsonb]);
    expect(rows[0].same, `${viaText}\n${viaJsonb}`).toBe(true);
    expect(JSON.parse(viaText)).toEqual(JSON.parse(viaJsonb));
  });

  it("covers answers with data, with errors, and from mutations", async () => {
    const answers = [];
    for (const c of cases) answers.push(JSON.parse(await answer("_resolve_text", c)));
    expect(answers.filter((a) => a.errors).length).toBeGreaterThanOrEqual(5);
    expect(answers.filter((a) => a.data && !a.errors).length).toBeGreaterThanOrEqual(6);
    const inserted = answers[cases.findIndex((c) => c.name === "insert")];
    expect(inserted.data.insertIntoAccountCollection.records).toEqual([{ id: 10, email: "j@x.test" }]);
  });

  it("undoes a failed request's writes, like resolve", async () => {
    const failing = `mutation { a: insertIntoAccountCollection(objects: [{ id: 20, email: "new@x.test" }]) { affectedCount }
                                b: insertIntoAccountCollection(objects: [{ id: 21, email: "a1@x.test" }]) { affectedCount } }`;
    const { rows } = await client.query("select graphql._resolve_text($1) as answer", [failing]);
    const parsed = JSON.parse(rows[0].answer);
    expect(parsed.data).toBeNull();
    expect(parsed.errors).toHaveLength(1);
    const { rows: left } = await client.query("select count(*)::int as n from account where id in (20, 21)");
    expect(left[0].n).toBe(0);
  });

  it("has resolve's privileges and security", async () => {
    const { rows } = await db.query(
      `select p.proname, p.prosecdef, p.provolatile, pg_catalog.pg_get_function_arguments(p.oid) as args,
              has_function_privilege('public', p.oid, 'execute') as public_execute
         from pg_proc p where p.pronamespace = 'graphql'::regnamespace and p.proname in ('resolve', '_resolve_text')
        order by p.proname`,
    );
    expect(rows.map((r) => r.proname)).toEqual(["_resolve_text", "resolve"]);
    const [text, resolve] = rows;
    for (const key of ["prosecdef", "provolatile", "args", "public_execute"]) expect(text[key]).toEqual(resolve[key]);
    expect(resolve.prosecdef).toBe(false);
    expect(resolve.public_execute).toBe(true);
  });
});

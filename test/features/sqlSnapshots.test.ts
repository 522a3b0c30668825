// Generated SQL of the opt-in features, pinned as snapshots; each snapshot's statements are run and
// their answer checked, so a snapshot never pins broken SQL.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { databaseWithExtension, statementsOf } from "./support";

describe("generated SQL of the opt-in features", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    ({ db, client } = await databaseWithExtension(`
      comment on schema public is '@graphql({"inflect_names": true, "upsert": true, "nested_mutations": true, "relation_filters": true, "relation_order_by": true})';
      create table author(id serial primary key, name text not null unique);
      create table post(id serial primary key, author_id int references author(id), title text not null, score int);
      create table reply(id serial primary key, post_id int not null references post(id), body text);
      insert into author(name) values ('Ann'), ('Bob');
      insert into post(author_id, title, score) values (1, 'one', 3), (2, 'two', null), (null, 'three', 1);
      insert into reply(post_id, body) values (1, 'hi'), (1, 'ho'), (2, null);
    `));
  });
  afterAll(async () => db.drop());

  /** The statements run and the answer's data, which must hold no errors. */
  const run = async (query: string, variables: Record<string, unknown> = {}) => {
    const { response, sql } = await statementsOf(client, query, variables);
    expect(response.errors).toBeUndefined();
    return { response, sql };
  };

  it("filters across relationships with exists subqueries", async () => {
    const { response, sql } = await run(`{ authorCollection(filter: {
      postCollection: {some: {replyCollection: {some: {body: {eq: "hi"}}}}, every: {score: {gt: 0}}},
      not: {postCollection: {none: {}}}
    }) { edges { node { name } } }
    postCollection(filter: {author: {name: {eq: "Bob"}}}) { edges { node { title } } } }`);
    expect(sql).toMatchSnapshot();
    expect(response.data).toEqual({
      authorCollection: { edges: [{ node: { name: "Ann" } }] },
      postCollection: { edges: [{ node: { title: "two" } }] },
    });
  });

  it("orders by a related column, carried into cursors", async () => {
    const { response, sql } = await run(
      `query($after: Cursor) { postCollection(orderBy: [{author: {name: DescNullsLast}}], first: 1, after: $after) {
        pageInfo { hasNextPage } edges { cursor node { title } } } }`,
      { after: Buffer.from(JSON.stringify(["Bob", 2])).toString("base64") },
    );
    expect(sql).toMatchSnapshot();
    expect(response.data.postCollection.pageInfo).toEqual({ hasNextPage: true });
    expect(response.data.postCollection.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(["one"]);
  });

  it("upserts with ON CONFLICT", async () => {
    await client.query("begin");
    try {
      const { response, sql } = await run(`mutation {
        updated: insertIntoAuthorCollection(objects: [{name: "Ann"}], onConflict: {constraint: author_name_key, updateFields: [name], filter: {postCollection: {some: {}}}}) { affectedCount }
        skipped: insertIntoAuthorCollection(objects: [{name: "Bob"}, {name: "Cy"}], onConflict: {constraint: author_name_key, updateFields: []}) { affectedCount records { name } }
      }`);
      expect(sql).toMatchSnapshot();
      expect(response.data).toEqual({ updated: { affectedCount: 1 }, skipped: { affectedCount: 1, records: [{ name: "Cy" }] } });
    } finally {
      await client.query("rollback");
    }
  });

  it("inserts related records in statements that read the keys inserted before", async () => {
    await client.query("begin");
    try {
      const { response, sql } = await run(`mutation { insertIntoPostCollection(objects: [{title: "new", author: {object: {name: "Dee"}},
        replyCollection: {objects: [{body: "a"}, {body: "b"}]}}]) { affectedCount records { title author { name } replyCollection { edges { node { body } } } } } }`);
      expect(sql).toMatchSnapshot();
      expect(response.data.insertIntoPostCollection).toEqual({
        affectedCount: 1,
        records: [{ title: "new", author: { name: "Dee" }, replyCollection: { edges: [{ node: { body: "a" } }, { node: { body: "b" } }] } }],
      });
    } finally {
      await client.query("rollback");
    }
  });
});

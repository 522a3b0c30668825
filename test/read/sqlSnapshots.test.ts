// Generated SQL for representative operations, pinned as snapshots; every snapshot is also run
// against the server and its answer checked, so a snapshot can never pin broken SQL.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { resolveInNode } from "./nodeResolve";

describe("generated SQL", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    client = await db.connect();
    await client.query(`
      comment on schema public is '@graphql({"inflect_names": true})';
      create type mood as enum ('happy', 'sad');
      create table author(id int primary key, name text not null, tags text[], mood mood);
      create table post(id int primary key, author_id int not null references author(id), title varchar(50) not null, score numeric);
      comment on table post is '@graphql({"totalCount": {"enabled": true}, "aggregate": {"enabled": true}})';
      insert into author values (1, 'Ann', '{a,b}', 'happy'), (2, 'Bob', null, 'sad'), (3, 'Cy', '{b}', null);
      insert into post values (1, 1, 'one', 1.5), (2, 1, 'two', null), (3, 2, 'three', 3), (4, 3, 'four', 4.25);
    `);
  });
  afterAll(async () => db.drop());

  const run = async (query: string, variables: Record<string, unknown> = {}) => {
    const answer = await resolveInNode(client, query, variables);
    expect(answer.response.errors).toBeUndefined();
    return answer;
  };

  it("nests relations both ways in one statement", async () => {
    const { response, statements } = await run(`{ authorCollection(first: 2) { edges { node { name
      postCollection(orderBy: [{id: DescNullsLast}]) { totalCount edges { node { title author { name } } } } } } } }`);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.sql).toMatchSnapshot();
    expect(response.data.authorCollection.edges[0].node.postCollection).toEqual({
      totalCount: 2,
      edges: [{ node: { title: "two", author: { name: "Ann" } } }, { node: { title: "one", author: { name: "Ann" } } }],
    });
  });

  it("filters with operators of several types", async () => {
    const { response, statements } = await run(`{ authorCollection(filter: {
      or: [{name: {ilike: "a%"}}, {tags: {contains: ["b"]}, mood: {is: NULL}}],
      not: {id: {in: [2]}}, mood: {neq: sad}
    }) { edges { node { id } } } }`);
    expect(statements[0]!.sql).toMatchSnapshot();
    expect(response.data.authorCollection.edges.map((e: { node: { id: number } }) => e.node.id)).toEqual([1]);
  });

  it("pages backward from a cursor", async () => {
    const { response, statements } = await run(
      `query($before: Cursor) { postCollection(last: 2, before: $before) { pageInfo { hasNextPage hasPreviousPage } edges { cursor node { id } } } }`,
      { before: "WzRd" },
    );
    expect(statements[0]!.sql).toMatchSnapshot();
    expect(response.data.postCollection).toEqual({
      pageInfo: { hasNextPage: true, hasPreviousPage: true },
      edges: [
        { cursor: "WzJd", node: { id: 2 } },
        { cursor: "WzNd", node: { id: 3 } },
      ],
    });
  });

  it("reads by key and aggregates", async () => {
    const { response, statements } = await run(`{
      postByPk(id: 3) { title score }
      postCollection(filter: {score: {gt: "1"}}) { aggregate { count sum { score } max { title } } }
    }`);
    expect(statements.map((s) => s.sql)).toMatchSnapshot();
    expect(response.data.postByPk).toEqual({ title: "three", score: "3" });
    expect(response.data.postCollection.aggregate).toEqual({ count: 3, sum: { score: 8.75 }, max: { title: "three" } });
  });
});

import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { REFLECTION_QUERY } from "../../src/catalog/reflectionQuery";
import { prepareDocument } from "../../src/document/prepareDocument";
import { compileOperation, type CachedStatements } from "../../src/execute/compileOperation";
import { Resolver } from "../../src/execute/Resolver";
import { resolveInNode } from "./nodeResolve";

describe("read queries", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    client = await db.connect();
    await client.query(`
      comment on schema public is '@graphql({"inflect_names": true})';
      create table account(id int primary key, email text not null, is_verified bool);
      create table blog(id serial primary key, owner_id int not null references account(id), name text not null, tags text[]);
      insert into account values (1, 'a@x.com', true), (2, 'b@x.com', true), (3, 'c@x.com', false);
      insert into blog(owner_id, name, tags) values (1, 'Blog 1', '{tech}'), (2, 'Blog 2', '{tech,travel}'), (2, 'Blog 3', null), (3, 'Blog 4', '{travel}');
    `);
  });
  afterAll(async () => db.drop());

  const ask = async (query: string, variables: Record<string, unknown> = {}) => (await resolveInNode(client, query, variables)).response;

  it("reads a collection with nested relations in one statement per root field", async () => {
    const { response, statements } = await resolveInNode(
      client,
      `{ accountCollection(first: 2) { edges { node { id email blogCollection { edges { node { name owner { id } } } } } } } }`,
    );
    expect(response.errors).toBeUndefined();
    expect(statements).toHaveLength(1);
    expect(response).toEqual({
      data: {
        accountCollection: {
          edges: [
            { node: { id: 1, email: "a@x.com", blogCollection: { edges: [{ node: { name: "Blog 1", owner: { id: 1 } } }] } } },
            {
              node: {
                id: 2,
                email: "b@x.com",
                blogCollection: { edges: [{ node: { name: "Blog 2", owner: { id: 2 } } }, { node: { name: "Blog 3", owner: { id: 2 } } }] },
              },
            },
          ],
        },
      },
    });
  });

  it("builds objects whose members read no column, or that have no member at all", async () => {
    const r = await ask(`{ accountCollection(first: 2) { edges { node { __typename } } }
      empty: accountCollection(first: 1) { edges { node { id @skip(if: true) } } }
      flags: accountCollection(orderBy: [{id: DescNullsLast}]) { edges { node { v: isVerified tags: blogCollection { edges { node { tags } } } } } } }`);
    expect(r).toEqual({
      data: {
        accountCollection: { edges: [{ node: { __typename: "Account" } }, { node: { __typename: "Account" } }] },
        empty: { edges: [{ node: {} }] },
        flags: {
          edges: [
            { node: { v: false, tags: { edges: [{ node: { tags: ["travel"] } }] } } },
            { node: { v: true, tags: { edges: [{ node: { tags: ["tech", "travel"] } }, { node: { tags: null } }] } } },
            { node: { v: true, tags: { edges: [{ node: { tags: ["tech"] } }] } } },
          ],
        },
      },
    });
  });

  it("filters, orders and pages", async () => {
    const r = await ask(`{ blogCollection(filter: {or: [{name: {eq: "Blog 4"}}, {id: {in: [1, 2]}}]}, orderBy: [{id: DescNullsLast}], first: 2) {
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } } }`);
    expect(r.data.blogCollection.edges.map((e: any) => e.node.id)).toEqual([4, 2]);
    expect(r.data.blogCollection.pageInfo.hasNextPage).toBe(true);
    const next = await ask(`query($c: Cursor) { blogCollection(orderBy: [{id: DescNullsLast}], first: 2, after: $c) { edges { node { id } } } }`, {
      c: r.data.blogCollection.pageInfo.endCursor,
    });
    expect(next.data.blogCollection.edges.map((e: any) => e.node.id)).toEqual([1]);
  });

  it("reads by primary key and by node id", async () => {
    const r = await ask(`{ accountByPk(id: 2) { id nodeId } }`);
    expect(r.data.accountByPk.id).toBe(2);
    const n = await ask(`query($n: ID!) { node(nodeId: $n) { ... on Account { email } } }`, { n: r.data.accountByPk.nodeId });
    expect(n).toEqual({ data: { node: { email: "b@x.com" } } });
  });

  it("answers user errors with pg_graphql's texts", async () => {
    expect(await ask(`{ accountCollection(first: 1, last: 1) { totalCount } }`)).toEqual({
      data: null,
      errors: [{ message: 'only one of "first" and "last" may be provided' }],
    });
    expect(await ask(`{ accountCollection { edges { node { dneField } } } }`)).toEqual({
      data: null,
      errors: [{ message: "Unknown field 'dneField' on type 'Account'" }],
    });
  });

  it("answers a document of 30 fragment levels, each spreading the next twice", async () => {
    const levels = 30;
    const fragments = Array.from({ length: levels }, (_, i) => {
      const next = i + 1 < levels ? `...F${i + 1} ...F${i + 1}` : "email";
      return `fragment F${i} on Account { id${i}: id ${next} }`;
    });
    const r = await ask(`{ accountByPk(id: 1) { ...F0 } }\n${fragments.join("\n")}`);
    const expected: Record<string, unknown> = Object.fromEntries(Array.from({ length: levels }, (_, i) => [`id${i}`, 1]));
    expect(r).toEqual({ data: { accountByPk: { ...expected, email: "a@x.com" } } });
  });

  it("reports introspection fields as unknown where no schema enables introspection, answering the others", async () => {
    expect(await ask(`{ __schema { queryType { name } } accountByPk(id: 1) { id } __type(name: "Account") { name } }`)).toEqual({
      data: { accountByPk: { id: 1 } },
      errors: [{ message: 'Unknown field "__schema" on type Query' }, { message: 'Unknown field "__type" on type Query' }],
    });
  });

  it("binds hostile variable values without changing the SQL text", async () => {
    const q = `query($e: String) { accountCollection(filter: {email: {eq: $e}}) { edges { node { id } } } }`;
    const a = await resolveInNode(client, q, { e: "a@x.com" });
    const b = await resolveInNode(client, q, { e: "'; drop table account; --" });
    expect(b.statements[0]!.sql).toBe(a.statements[0]!.sql);
    expect(b.response).toEqual({ data: { accountCollection: { edges: [] } } });
  });

  it("re-binds cached statements for new variable values of the same shape", async () => {
    const api = Resolver.apiOf((await client.query(REFLECTION_QUERY)).rows[0].catalog);
    const doc = prepareDocument(
      `query($e: String, $first: Int, $after: Cursor) { accountCollection(first: $first, after: $after, filter: {email: {neq: $e}}) {
        edges { cursor node { id nodeId blogCollection { edges { node { name } } } } } } }`,
      null,
    );
    if (doc.kind !== "ok") throw new Error(doc.message);
    const store = new Map<string, CachedStatements>();
    let hits = 0;
    const cache = { get: (k: string) => store.get(k), set: (k: string, v: CachedStatements) => void store.set(k, v) };
    const variables = [
      { e: "a@x.com", first: 1, after: "WzJd" },
      { e: "'; drop table account; --", first: 2, after: "WzFd" },
    ];
    const first = compileOperation(api, doc, variables[0]!, cache, () => hits++);
    const second = compileOperation(api, doc, variables[1]!, cache, () => hits++);
    const fresh = compileOperation(api, doc, variables[1]!);
    expect(hits).toBe(1);
    const [a, b, c] = [first, second, fresh].map((x) => x.statements[0]![0]!);
    expect(b!.sql).toBe(a!.sql);
    expect(b!.sql).toBe(c!.sql);
    expect(b!.params).toEqual(c!.params);
    const res = await client.query(b!.sql, b!.params);
    expect(JSON.parse(second.assemble([res.rows[0].result])).data.accountCollection.edges.map((e: any) => e.node.id)).toEqual([2, 3]);
  });

  it("aggregates over the filtered set, ignoring pagination", async () => {
    await client.query(`comment on table blog is '@graphql({"aggregate": {"enabled": true}, "totalCount": {"enabled": true}})'`);
    try {
      const r = await ask(`{ blogCollection(first: 1, filter: {ownerId: {gte: 2}}) {
        totalCount
        aggregate { count sum { id ownerId } avg { id } min { name id } max { name } }
        edges { node { id } } } }`);
      expect(r.errors).toBeUndefined();
      expect(r.data.blogCollection.totalCount).toBe(3);
      expect(r.data.blogCollection.edges).toHaveLength(1);
      const agg = r.data.blogCollection.aggregate;
      expect(agg.count).toBe(3);
      expect(agg.min).toEqual({ name: "Blog 2", id: 2 });
      expect(agg.max).toEqual({ name: "Blog 4" });
      expect(Number(agg.sum.id)).toBe(9);
      expect(Number(agg.sum.ownerId)).toBe(7);
      expect(Number(agg.avg.id)).toBe(3);
    } finally {
      await client.query("comment on table blog is null");
    }
  });

  it("gives hostile cursors and node ids the same SQL text as benign ones", async () => {
    const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
    const cursorQuery = `query($c: Cursor) { accountCollection(orderBy: [{email: AscNullsLast}], after: $c) { edges { node { id } } } }`;
    const benignCursor = await resolveInNode(client, cursorQuery, { c: b64(JSON.stringify(["a@x.com", 1])) });
    const hostileCursor = await resolveInNode(client, cursorQuery, { c: b64(JSON.stringify(["'); drop table account; --", 1])) });
    expect(hostileCursor.statements[0]!.sql).toBe(benignCursor.statements[0]!.sql);
    expect(hostileCursor.response.data.accountCollection.edges.map((e: any) => e.node.id)).toEqual([1, 2, 3]);

    const nodeQuery = `query($n: ID!) { accountCollection(filter: {nodeId: {eq: $n}}) { edges { node { id } } } }`;
    const benignNode = await resolveInNode(client, nodeQuery, { n: b64(JSON.stringify(["public", "account", 1])) });
    const hostileNode = await resolveInNode(client, nodeQuery, { n: b64(JSON.stringify(["public", "account", "1; drop table account"])) });
    expect(hostileNode.statements[0]!.sql).toBe(benignNode.statements[0]!.sql);
    expect(hostileNode.response).toEqual({ data: null, errors: [{ message: 'invalid input syntax for type integer: "1; drop table account"' }] });
    expect((await ask(`{ accountCollection { edges { node { id } } } }`)).data.accountCollection.edges).toHaveLength(3);
  });

  it("round-trips bigint keys past 2^53 through node ids and cursors", async () => {
    await client.query("create table big(id bigint primary key); insert into big values (9007199254740993), (9007199254740995)");
    const page = await ask(`{ bigCollection(first: 1) { edges { cursor node { id nodeId } } } }`);
    const edge = page.data.bigCollection.edges[0];
    expect(edge.node.id).toBe("9007199254740993");
    const byId = await ask(`query($n: ID!) { node(nodeId: $n) { ... on Big { id } } }`, { n: edge.node.nodeId });
    expect(byId).toEqual({ data: { node: { id: "9007199254740993" } } });
    const next = await ask(`query($c: Cursor) { bigCollection(after: $c) { edges { node { id } } } }`, { c: edge.cursor });
    expect(next.data.bigCollection.edges).toEqual([{ node: { id: "9007199254740995" } }]);
  });
});

// In a catalog past the narrowing threshold a request is answered from the API of the relations
// it names (reflected and built for those alone); its answer must be the whole API's, and what the
// narrowed API cannot answer (node, introspection, unknown names) is answered by the whole one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { NARROWING_THRESHOLD } from "../../src/execute/SchemaSource";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { resolveInNode } from "../read/nodeResolve";

const tables = NARROWING_THRESHOLD + 20;

describe("a large catalog", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
    await db.query(`
      comment on schema public is '@graphql({"introspection": true})';
      create type mood as enum ('calm', 'busy');
      do $$
      begin
        for i in 1..${tables} loop
          execute format('create table t%s (id int primary key, name text not null, mood mood, parent_id int %s, other_id int %s)',
            i,
            case when i > 1 then format('references t%s(id)', i - 1) else '' end,
            case when i > 2 then format('references t%s(id)', i / 2) else '' end);
          execute format('insert into t%s select g, ''row '' || g, ''busy'', %s, null from generate_series(1, 3) g', i, case when i > 1 then 'g' else 'null' end);
        end loop;
      end $$;
      comment on table t5 is '@graphql({"name": "Renamed"})';
      -- Named like another table's types: whichever the whole catalog lets win must win here too.
      create table "t7Edge" (id int primary key, label text);
      create function _first_child(t6) returns setof t7 stable language sql as 'select * from t7 where parent_id = $1.id';`);
  });
  afterAll(async () => db.drop());

  const inBackend = async (client: pg.Client, query: string, variables: unknown = {}) =>
    (await client.query("select graphql.resolve($1, $2) as answer", [query, JSON.stringify(variables)])).rows[0].answer;
  const info = async (client: pg.Client) => (await client.query("select graphql._bundle_info() as info")).rows[0].info;

  const queries = [
    "{ t1Collection(first: 2) { edges { node { id name mood t2Collection { edges { node { id t1 { id name } } } } } } } }",
    "{ t40ByPk(id: 2) { id other: t20 { id } t41Collection(filter: { id: { gt: 1 } }) { edges { cursor } } } }",
    "{ renamedCollection { edges { node { __typename id t6Collection { edges { node { id } } } } } } }",
    "query Q($n: Int) { t7Collection(first: $n) { edges { __typename node { id } } } }",
    "{ t6Collection { edges { node { id first_child { edges { node { id } } } } } } }",
    "{ t3Collection { edges { node { nope } } } }",
    "{ t200Collection { totalCount } }",
  ];

  it("answers as the whole API does, building only what the request names", async () => {
    const client = await db.connect();
    const full = await db.connect();
    try {
      const first = await inBackend(client, queries[0]!);
      expect(first.data.t1Collection.edges[0].node.t2Collection.edges[0].node.t1).toEqual({ id: 1, name: "row 1" });
      const stats = await info(client);
      expect(stats.partialSchemaLoads).toBe(1);
      expect(stats.schemaLoads).toBe(0);
      for (const q of queries) {
        const expected = (await resolveInNode(full, q, { n: 1 })).response;
        expect(await inBackend(client, q, { n: 1 }), q).toEqual(expected);
      }
    } finally {
      await client.end();
      await full.end();
    }
  });

  it("answers node lookups and introspection from the whole API", async () => {
    const client = await db.connect();
    const full = await db.connect();
    try {
      const nodeId = (await inBackend(client, "{ t30Collection(first: 1) { edges { node { nodeId } } } }")).data.t30Collection.edges[0].node.nodeId;
      const node = `{ node(nodeId: "${nodeId}") { ... on t30 { id name } } }`;
      expect(await inBackend(client, node)).toEqual({ data: { node: { id: 1, name: "row 1" } } });
      const typeQuery = '{ __type(name: "t1") { fields { name } } }';
      expect(await inBackend(client, typeQuery)).toEqual((await resolveInNode(full, typeQuery)).response);
      const types = await inBackend(client, "{ __schema { types { name } } }");
      expect(types.data.__schema.types.length).toBeGreaterThan(tables * 10);
      expect((await info(client)).schemaLoads).toBe(1);
    } finally {
      await client.end();
      await full.end();
    }
  });

  it("reflects a table created after the first request", async () => {
    const client = await db.connect();
    try {
      await inBackend(client, queries[0]!);
      await db.query("create table fresh (id int primary key, t1_id int references t1(id)); insert into fresh values (1, 1)");
      const answer = await inBackend(client, "{ freshCollection { edges { node { id t1 { id } } } } }");
      expect(answer).toEqual({ data: { freshCollection: { edges: [{ node: { id: 1, t1: { id: 1 } } }] } } });
      const insert = await inBackend(client, "mutation { insertIntofreshCollection(objects: [{ id: 2, t1_id: 3 }]) { affectedCount } }");
      expect(insert).toEqual({ data: { insertIntofreshCollection: { affectedCount: 1 } } });
      expect((await info(client)).schemaLoads).toBe(0);
    } finally {
      await client.end();
    }
  });

  it("builds the whole API where a table and an enum want the same name", async () => {
    await db.query(`comment on table t9 is '@graphql({"name": "mood"})'`);
    const client = await db.connect();
    const full = await db.connect();
    try {
      for (const q of ["{ moodCollection(first: 1) { edges { node { id } } } }", "{ t1Collection(filter: { mood: { eq: busy } }) { edges { node { mood } } } }"]) {
        expect(await inBackend(client, q), q).toEqual((await resolveInNode(full, q)).response);
      }
      expect(await info(client)).toMatchObject({ schemaLoads: 1, partialSchemaLoads: 0 });
    } finally {
      await client.end();
      await full.end();
    }
  });
});

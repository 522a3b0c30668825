// The generated SQL on a table of 100,000 rows: pages by cursor (forward and backward), a filter
// on an indexed column, node(nodeId:) and a nested page are planned on indexes, and keyset
// pagination never scans the table. Asserted on EXPLAIN, not on time (the timed figures at 10k,
// 100k and 1M rows are the bench's).
import { describe, expect, it } from "vitest";
import { Resolver } from "../../src/execute/Resolver";
import { reflectedDatabase } from "../harness/reflectSchema";

const ROWS = 100_000;
// The item table alone takes about 600 pages of 8 kB.
const maxBlocks = 150;

interface PlanNode {
  "Node Type": string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

describe("generated SQL on a big table", () => {
  const t = reflectedDatabase(
    `
      create extension pg_graphql cascade;
      comment on schema public is '@graphql({"inflect_names": true})';
      create table item(id int primary key, category int not null, title text not null);
      create index item_category_idx on item(category);
      create table note(id int primary key, item_id int not null references item(id), body text);
      create index note_item_id_idx on note(item_id);
      insert into item select i, i % 5000, 'item ' || i from generate_series(1, ${ROWS}) i;
      insert into note select i, 1 + (i * 7919) % ${ROWS}, 'note ' || i from generate_series(1, ${ROWS}) i;
      analyze item, note;`,
    120_000,
  );

  async function resolve(query: string, variables: Record<string, unknown> = {}): Promise<any> {
    const { rows } = await t.client.query("select graphql.resolve($1, $2::jsonb) as answer", [query, JSON.stringify(variables)]);
    expect(rows[0].answer.errors).toBeUndefined();
    return rows[0].answer.data;
  }

  /** The plan nodes of every statement the resolver runs for the request. */
  async function planOf(query: string, variables: Record<string, unknown>): Promise<PlanNode[]> {
    const compiled = Resolver.compile(t.api, query, JSON.stringify(variables), null);
    const statements = compiled.statements.flat();
    expect(statements.length).toBeGreaterThan(0);
    const nodes: PlanNode[] = [];
    for (const s of statements) {
      const { rows } = await t.client.query(`explain (analyze, buffers, format json) ${s.sql}`, s.params);
      const statementNodes = nodesOf(rows[0]["QUERY PLAN"][0].Plan);
      // Flat in the table's size: a page reads a few index and heap pages, never the table (a
      // node's block counts include its children's).
      const blocks = Math.max(...statementNodes.map((n) => (n["Shared Hit Blocks"] ?? 0) + (n["Shared Read Blocks"] ?? 0)));
      expect(blocks, s.sql).toBeLessThan(maxBlocks);
      nodes.push(...statementNodes);
    }
    return nodes;
  }

  function expectIndexedOnly(nodes: PlanNode[], table: string, index?: string) {
    const seqScans = nodes.filter((n) => n["Node Type"] === "Seq Scan" && (n["Relation Name"] === "item" || n["Relation Name"] === "note"));
    expect(seqScans, JSON.stringify(seqScans)).toEqual([]);
    const indexScans = nodes.filter((n) => /Index/.test(n["Node Type"]) && (index === undefined || n["Index Name"] === index));
    expect(indexScans.some((n) => n["Relation Name"] === table || n["Index Name"]?.startsWith(table)), JSON.stringify(nodes)).toBe(true);
  }

  const page = `query P($first: Int, $last: Int, $after: Cursor, $before: Cursor) {
    itemCollection(first: $first, last: $last, after: $after, before: $before) {
      pageInfo { startCursor endCursor hasNextPage hasPreviousPage } edges { cursor node { id title } } } }`;

  it("pages forward and backward by cursor on the primary key", async () => {
    const first = await resolve(page, { first: 20 });
    const after = first.itemCollection.pageInfo.endCursor;
    const next = await resolve(page, { first: 20, after });
    expect(next.itemCollection.edges.map((e: any) => e.node.id)).toEqual(Array.from({ length: 20 }, (_, i) => 21 + i));
    const back = await resolve(page, { last: 20, before: next.itemCollection.pageInfo.endCursor });
    expect(back.itemCollection.edges.map((e: any) => e.node.id)).toEqual(Array.from({ length: 20 }, (_, i) => 20 + i));
    expect(first.itemCollection.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    expect(next.itemCollection.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    expect(back.itemCollection.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });

    expectIndexedOnly(await planOf(page, { first: 20, after }), "item", "item_pkey");
    expectIndexedOnly(await planOf(page, { last: 20, before: next.itemCollection.pageInfo.endCursor }), "item", "item_pkey");
    expectIndexedOnly(await planOf(page, { last: 20 }), "item", "item_pkey");
  });

  it("filters on an indexed column with its index", async () => {
    const query = `query F($c: Int!) { itemCollection(first: 20, filter: { category: { eq: $c } }) { edges { node { id } } } }`;
    const data = await resolve(query, { c: 42 });
    expect(data.itemCollection.edges.map((e: any) => e.node.id)).toEqual(Array.from({ length: 20 }, (_, i) => 42 + 5000 * i));
    expectIndexedOnly(await planOf(query, { c: 42 }), "item", "item_category_idx");
  });

  it("finds node(nodeId:) by its primary key", async () => {
    const { itemCollection } = await resolve(`{ itemCollection(filter: { id: { eq: 77777 } }) { edges { node { nodeId } } } }`);
    const nodeId = itemCollection.edges[0].node.nodeId;
    const query = `query N($id: ID!) { node(nodeId: $id) { ... on Item { id title } } }`;
    expect((await resolve(query, { id: nodeId })).node).toEqual({ id: 77777, title: "item 77777" });
    expectIndexedOnly(await planOf(query, { id: nodeId }), "item", "item_pkey");
  });

  it("reads a nested page through the foreign key's index", async () => {
    const query = `query Q($after: Cursor) { itemCollection(first: 20, after: $after) { edges { node { id
      noteCollection(first: 5) { edges { node { id } } } } } } }`;
    const { itemCollection } = await resolve(`{ itemCollection(filter: { id: { eq: 500 } }) { edges { cursor } } }`);
    const after = itemCollection.edges[0].cursor;
    const data = await resolve(query, { after });
    expect(data.itemCollection.edges[0].node.id).toBe(501);
    expect(data.itemCollection.edges.some((e: any) => e.node.noteCollection.edges.length > 0)).toBe(true);
    const nodes = await planOf(query, { after });
    expectIndexedOnly(nodes, "item", "item_pkey");
    expectIndexedOnly(nodes, "note", "note_item_id_idx");
  });
});

// Cursors with fewer values than the order, as pg_graphql 1.6 pages by them: the cursor's values
// are compared with the order's columns from the first on (the primary key closing the order),
// and where the values end the comparison ends, strictly. Only a cursor with more values than
// the order is refused.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { resolveInNode } from "../read/nodeResolve";

const cursor = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString("base64");

describe("cursors shorter than the order", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    client = await db.connect();
    await client.query(`
      create table book(id int primary key, reversed int, title text);
      insert into book values (1, 3, 'a'), (2, 3, 'a'), (3, 3, 'b'), (4, 2, 'z'), (5, 3, null), (6, null, 'a'), (7, 4, 'a');
    `);
  });
  afterAll(async () => db.drop());

  // In this order the rows are 4, 5, 1, 2, 3, 7, 6.
  const order = `[{reversed: AscNullsLast}, {title: AscNullsFirst}]`;
  const page = async (args: string, values: unknown[], selection = "edges { node { id } }") => {
    const r = (await resolveInNode(client, `query($c: Cursor) { bookCollection(${args}) { ${selection} } }`, { c: cursor(values) })).response;
    return r.errors ? r.errors.map((e: { message: string }) => e.message).join("; ") : r.data.bookCollection;
  };
  const ids = async (args: string, values: unknown[]) => (await page(args, values)).edges.map((e: any) => e.node.id);

  it("pages after the rows tied with the cursor on the columns it has values for", async () => {
    expect(await ids(`orderBy: ${order}, after: $c`, [3, "a"])).toEqual([3, 7, 6]);
    expect(await ids(`orderBy: ${order}, after: $c`, [3])).toEqual([7, 6]);
    expect(await ids(`orderBy: ${order}, after: $c`, [3, "a", 1])).toEqual([2, 3, 7, 6]);
    expect(await ids(`orderBy: ${order}, after: $c`, [3, null])).toEqual([1, 2, 3, 7, 6]);
    expect(await ids(`orderBy: ${order}, after: $c`, [null])).toEqual([]);
    expect(await ids(`orderBy: [{reversed: DescNullsFirst}], after: $c`, [3])).toEqual([4]);
  });

  it("pages before them the same way", async () => {
    expect(await ids(`orderBy: ${order}, before: $c, last: 5`, [3, "a"])).toEqual([4, 5]);
    expect(await ids(`orderBy: ${order}, before: $c`, [4])).toEqual([4, 5, 1, 2, 3]);
    expect(await ids(`before: $c`, [3])).toEqual([1, 2]);
  });

  it("says whether rows lie on either side of the page", async () => {
    const p = await page(`orderBy: ${order}, after: $c, first: 2`, [3, "a"], "pageInfo { hasPreviousPage hasNextPage } edges { node { id } }");
    expect(p).toEqual({ pageInfo: { hasPreviousPage: true, hasNextPage: true }, edges: [{ node: { id: 3 } }, { node: { id: 7 } }] });
  });

  it("finds no row after a cursor without values", async () => {
    expect(await ids(`after: $c`, [])).toEqual([]);
  });

  it("refuses a cursor with more values than the order", async () => {
    expect(await page(`orderBy: ${order}, after: $c`, [3, "a", 1, 1])).toBe("orderBy clause incompatible with pagination cursor");
    expect(await page(`after: $c`, [1, 1])).toBe("orderBy clause incompatible with pagination cursor");
  });
});

// Ordering by a related column (opt-in): `orderBy: [{author: {name: AscNullsLast}}]`, nested to any
// depth, checked against plain SQL with outer joins; cursors carry the related values, so paging
// with after/before walks the whole order; a missing (or hidden) related row sorts as null.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { data, databaseWithExtension, edgeIds, failure, loginRole, resolve, sqlIds } from "./support";

describe("ordering by related columns", () => {
  let db: TestDatabase;
  let admin: pg.Client;

  beforeAll(async () => {
    ({ db, client: admin } = await databaseWithExtension(`
      comment on schema public is '@graphql({"inflect_names": true, "introspection": true, "relation_order_by": true})';
      create table country(code text primary key, name text);
      create table author(id int primary key, name text, country_code text references country(code));
      create table book(id int primary key, title text not null, author_id int references author(id), editor_id int references author(id));
      comment on table book is '@graphql({"totalCount": {"enabled": true}})';
      create table profile(id int primary key, author_id int unique references author(id), rank int);
      create table shelf(room text, num int, label text, primary key (room, num));
      create table copy(id int primary key, room text, num int, foreign key (room, num) references shelf(room, num));
      create table category(id int primary key, name text, parent_id int references category(id));
      insert into country values ('fr', 'France'), ('de', 'Germany'), ('xx', null);
      insert into author values (1, 'Zoe', 'fr'), (2, 'Adam', 'de'), (3, 'Mia', null), (4, null, 'xx'), (5, 'Adam', 'fr');
      insert into book values
        (1, 'a', 1, 2), (2, 'b', 2, 2), (3, 'c', 3, null), (4, 'd', null, 1), (5, 'e', 4, 3),
        (6, 'f', 5, 5), (7, 'g', 2, 4), (8, 'h', 1, null), (9, 'i', null, null), (10, 'j', 5, 1);
      insert into profile values (1, 1, 3), (2, 2, 1), (3, 5, 2);
      insert into shelf values ('a', 1, 'top'), ('a', 2, 'bottom'), ('b', 1, 'middle');
      insert into copy values (1, 'a', 1), (2, 'b', 1), (3, 'a', 2), (4, null, null);
      insert into category values (1, 'root', null), (2, 'b-child', 1), (3, 'a-child', 1), (4, 'leaf', 3), (5, 'other', null), (6, 'z', 5);
      ${loginRole("feat_ob_reader")}
      grant select on author, book to feat_ob_reader;
      alter table author enable row level security;
      create policy not_zoe on author for select to feat_ob_reader using (name is distinct from 'Zoe');
    `));
  });
  afterAll(async () => db.drop());

  const books = async (orderBy: string, client = admin) =>
    edgeIds((await data(client, `{ bookCollection(orderBy: ${orderBy}) { edges { node { id } } } }`)).bookCollection);

  it("orders by a to-one relationship's column, a missing row sorting as null", async () => {
    const cases: [string, string][] = [
      [`[{author: {name: AscNullsLast}}]`, "a.name asc nulls last, b.id"],
      [`[{author: {name: DescNullsFirst}}, {id: DescNullsLast}]`, "a.name desc nulls first, b.id desc"],
      [`[{editor: {name: AscNullsFirst}}, {author: {name: DescNullsLast}}]`, "e.name asc nulls first, a.name desc nulls last, b.id"],
      [`[{author: {country: {name: DescNullsLast}}}]`, "c.name desc nulls last, b.id"],
      [`[{title: DescNullsLast}, {author: {id: AscNullsLast}}]`, "b.title desc, a.id, b.id"],
    ];
    for (const [orderBy, sql] of cases) {
      expect(await books(orderBy), orderBy).toEqual(
        await sqlIds(admin, `select b.id from book b left join author a on a.id = b.author_id left join author e on e.id = b.editor_id
          left join country c on c.code = a.country_code order by ${sql}`),
      );
    }
  });

  it("follows composite, self-referencing and reverse one-to-one keys", async () => {
    const copies = edgeIds((await data(admin, `{ copyCollection(orderBy: [{shelf: {label: AscNullsFirst}}]) { edges { node { id } } } }`)).copyCollection);
    expect(copies).toEqual(await sqlIds(admin, "select c.id from copy c left join shelf s on (s.room, s.num) = (c.room, c.num) order by s.label nulls first, c.id"));
    const categories = edgeIds((await data(admin, `{ categoryCollection(orderBy: [{parent: {parent: {name: DescNullsLast}}}, {parent: {name: AscNullsLast}}]) { edges { node { id } } } }`)).categoryCollection);
    expect(categories).toEqual(
      await sqlIds(admin, "select c.id from category c left join category p on p.id = c.parent_id left join category g on g.id = p.parent_id order by g.name desc nulls last, p.name nulls last, c.id"),
    );
    const authors = edgeIds((await data(admin, `{ authorCollection(orderBy: [{profile: {rank: AscNullsLast}}]) { edges { node { id } } } }`)).authorCollection);
    expect(authors).toEqual(await sqlIds(admin, "select a.id from author a left join profile p on p.author_id = a.id order by p.rank nulls last, a.id"));
  });

  it("pages with cursors carrying the related values, forward and backward", async () => {
    const orderBy = `[{author: {name: DescNullsLast}}, {editor: {name: AscNullsFirst}}]`;
    const all = await books(orderBy);
    expect(all).toHaveLength(10);
    const page = `edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount`;
    for (const size of [1, 3, 4]) {
      const forward: number[] = [];
      let after: string | null = null;
      for (let i = 0; i < 20; i++) {
        const conn: any = (await data(admin, `query($after: Cursor) { bookCollection(orderBy: ${orderBy}, first: ${size}, after: $after) { ${page} } }`, { after })).bookCollection;
        expect(conn.totalCount).toBe(10);
        forward.push(...edgeIds(conn));
        if (!conn.pageInfo.hasNextPage) break;
        after = conn.pageInfo.endCursor;
      }
      expect(forward, `forward by ${size}`).toEqual(all);
      const backward: number[] = [];
      let before: string | null = null;
      for (let i = 0; i < 20; i++) {
        const conn: any = (await data(admin, `query($before: Cursor) { bookCollection(orderBy: ${orderBy}, last: ${size}, before: $before) { ${page} } }`, { before })).bookCollection;
        backward.unshift(...edgeIds(conn));
        if (!conn.pageInfo.hasPreviousPage) break;
        before = conn.pageInfo.startCursor;
      }
      expect(backward, `backward by ${size}`).toEqual(all);
    }
    // The cursor holds the author's and editor's names, then the key.
    const first = (await data(admin, `{ bookCollection(orderBy: ${orderBy}, first: 1) { edges { cursor node { id } } } }`)).bookCollection.edges[0];
    const row = (await admin.query("select a.name as author, e.name as editor from book b left join author a on a.id = b.author_id left join author e on e.id = b.editor_id where b.id = $1", [first.node.id])).rows[0];
    expect(JSON.parse(Buffer.from(first.cursor, "base64").toString())).toEqual([row.author, row.editor, first.node.id]);
  });

  it("sorts a related row the role cannot see as null", async () => {
    const reader = await db.connect({ user: "feat_ob_reader" });
    expect(await books(`[{author: {name: AscNullsFirst}}]`, reader)).toEqual(
      await sqlIds(admin, "select b.id from book b left join author a on a.id = b.author_id and a.name is distinct from 'Zoe' order by a.name nulls first, b.id"),
    );
  });

  it("wants exactly one field per related entry", async () => {
    for (const orderBy of [`[{author: {name: AscNullsLast, id: AscNullsLast}}]`, `[{author: {}}]`, `[{author: {country: {}}}]`]) {
      const answer = await resolve(admin, `{ bookCollection(orderBy: ${orderBy}) { edges { node { id } } } }`);
      expect(failure(answer)[0], orderBy).toMatch(/^An orderBy entry for the relationship "(author|country)" must name exactly one field of (Author|Country)OrderBy$/);
    }
    const unknown = await resolve(admin, `{ bookCollection(orderBy: [{author: {nope: AscNullsLast}}]) { edges { node { id } } } }`);
    expect(failure(unknown)).toEqual(['Input for type AuthorOrderBy contains extra keys ["nope"]']);
  });
});

// The write API through graphql.resolve: insert, update and delete with their records (relations
// and computed fields included), atMost, mutating functions, and input coercion errors.
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { databaseWithExtension, failure, resolve, rows, type GraphQLAnswer } from "./support";

describe("mutations", () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    ({ db, client } = await databaseWithExtension(`
      create type mood as enum ('happy', 'so so');
      comment on type mood is '@graphql({"mappings": {"so so": "so_so"}})';
      create table account(
        id serial primary key,
        email varchar(12) not null,
        code char(2),
        mood mood,
        points bigint,
        balance numeric(10, 2),
        profile jsonb,
        created_at timestamptz not null default now()
      );
      create table blog(
        id serial primary key,
        owner_id int not null references account(id) on delete cascade,
        title text not null
      );
      comment on table blog is '@graphql({"totalCount": {"enabled": true}})';
      create table ping(id serial primary key, kind text not null default 'ping');
      create function _shout(account) returns text language sql stable as $$ select upper($1.email) $$;
      create function bump_points(account_id int, by bigint default 1) returns bigint language sql volatile as $$
        update account set points = coalesce(points, 0) + by where id = account_id returning points
      $$;
      create function _label(blog) returns text language sql stable as $$ select $1.title || '!' $$;
      create function open_blog(owner int, title text) returns blog language sql volatile as $$
        insert into blog(owner_id, title) values (owner, title) returning *
      $$;
      create function copy_blogs(from_owner int, to_owner int) returns setof blog language sql volatile as $$
        insert into blog(owner_id, title) select to_owner, b.title from blog b where b.owner_id = from_owner order by b.id returning *
      $$;
      create function account_emails() returns setof text language sql stable as $$ select email from account order by id $$;
    `));
  });
  afterAll(async () => db.drop());

  beforeEach(async () => {
    await client.query(`
      truncate account, blog restart identity cascade;
      insert into account(email, mood, points) values ('a@x.com', 'happy', 10), ('b@x.com', 'so so', 20), ('c@x.com', null, 30);
      insert into blog(owner_id, title) values (1, 'one'), (1, 'two'), (2, 'three');
    `);
  });

  it("keeps every digit of integer variables past 2^53", async () => {
    const raw = async (query: string, variablesJson: string) =>
      (await client.query("select graphql.resolve($1, $2::jsonb) as r", [query, variablesJson])).rows[0].r as GraphQLAnswer;
    const updated = await raw(
      `mutation($p: BigInt!) { updateAccountCollection(set: {points: $p}, filter: {id: {eq: 1}}) { records { id points } } }`,
      '{"p": 9007199254740993}',
    );
    expect(updated).toEqual({ data: { updateAccountCollection: { records: [{ id: 1, points: "9007199254740993" }] } } });
    expect((await rows(client, "select points::text from account where id = 1"))[0]).toEqual({ points: "9007199254740993" });

    const found = await raw(`query($p: BigInt) { accountCollection(filter: {points: {eq: $p}}) { edges { node { id } } } }`, '{"p": 9007199254740993}');
    expect(found).toEqual({ data: { accountCollection: { edges: [{ node: { id: 1 } }] } } });

    const tooLarge = await raw(`query($n: Int) { accountCollection(first: $n) { edges { node { id } } } }`, '{"n": 9007199254740993}');
    expect(failure(tooLarge)).toEqual(["Invalid input for Int type"]);
  });

  it("inserts objects and answers affectedCount and records with relations and computed fields", async () => {
    const answer = await resolve(
      client,
      `mutation($objs: [AccountInsertInput!]!) {
        insertIntoAccountCollection(objects: $objs) {
          __typename
          affectedCount
          records { id email mood points shout blogCollection { totalCount } }
        }
      }`,
      { objs: [{ email: "d@x.com", mood: "so_so", points: "9007199254740993" }, { email: "e@x.com", points: 5 }] },
    );
    expect(answer).toEqual({
      data: {
        insertIntoAccountCollection: {
          __typename: "AccountInsertResponse",
          affectedCount: 2,
          records: [
            { id: 4, email: "d@x.com", mood: "so_so", points: "9007199254740993", shout: "D@X.COM", blogCollection: { totalCount: 0 } },
            { id: 5, email: "e@x.com", mood: null, points: "5", shout: "E@X.COM", blogCollection: { totalCount: 0 } },
          ],
        },
      },
    });
    // Enum values are stored under their database labels; columns left out take their defaults.
    expect(await rows(client, "select mood::text, points::text, created_at is not null as dated from account where id >= 4 order by id")).toEqual([
      { mood: "so so", points: "9007199254740993", dated: true },
      { mood: null, points: "5", dated: true },
    ]);
  });

  it("inserts one row of defaults per object that sets no column", async () => {
    const answer = await resolve(client, `mutation { insertIntoPingCollection(objects: [{}, {}, {kind: "pong"}]) { affectedCount records { kind } } }`);
    expect(answer).toEqual({ data: { insertIntoPingCollection: { affectedCount: 3, records: [{ kind: "ping" }, { kind: "ping" }, { kind: "pong" }] } } });
    const onlyDefaults = await resolve(client, `mutation { insertIntoPingCollection(objects: [{}, {}]) { affectedCount records { kind } } }`);
    expect(onlyDefaults).toEqual({ data: { insertIntoPingCollection: { affectedCount: 2, records: [{ kind: "ping" }, { kind: "ping" }] } } });
    const one = await resolve(client, `mutation { insertIntoPingCollection(objects: {}) { affectedCount } }`);
    expect(one).toEqual({ data: { insertIntoPingCollection: { affectedCount: 1 } } });
  });

  it("inserts a row whose records reach its parent through a relationship", async () => {
    const answer = await resolve(client, `mutation { insertIntoBlogCollection(objects: {ownerId: 2, title: "four"}) { records { title owner { email } } } }`);
    expect(answer).toEqual({ data: { insertIntoBlogCollection: { records: [{ title: "four", owner: { email: "b@x.com" } }] } } });
  });

  it("updates the filtered rows and answers them", async () => {
    const answer = await resolve(
      client,
      `mutation { updateAccountCollection(set: {email: "new@x.com", balance: "12.50"}, filter: {id: {eq: 2}}) {
        affectedCount records { id email balance blogCollection { edges { node { title } } } } } }`,
    );
    expect(answer).toEqual({
      data: {
        updateAccountCollection: {
          affectedCount: 1,
          records: [{ id: 2, email: "new@x.com", balance: "12.50", blogCollection: { edges: [{ node: { title: "three" } }] } }],
        },
      },
    });
    expect(await rows(client, "select id, email from account order by id")).toEqual([
      { id: 1, email: "a@x.com" },
      { id: 2, email: "new@x.com" },
      { id: 3, email: "c@x.com" },
    ]);
  });

  it("deletes the filtered rows and answers them as they were", async () => {
    const answer = await resolve(client, `mutation { deleteFromAccountCollection(filter: {email: {eq: "a@x.com"}}) { affectedCount records { id email } } }`);
    expect(answer).toEqual({ data: { deleteFromAccountCollection: { affectedCount: 1, records: [{ id: 1, email: "a@x.com" }] } } });
    expect(await rows(client, "select id from account order by id")).toEqual([{ id: 2 }, { id: 3 }]);
    // The cascade went with it.
    expect(await rows(client, "select id from blog order by id")).toEqual([{ id: 3 }]);
  });

  it("answers an empty records list when nothing matches", async () => {
    const answer = await resolve(client, `mutation { x: updateAccountCollection(set: {code: "zz"}, filter: {id: {eq: 99}}) { affectedCount records { id } } }`);
    expect(answer).toEqual({ data: { x: { affectedCount: 0, records: [] } } });
  });

  describe("atMost", () => {
    it("defaults to 1: an update touching two rows fails and changes nothing", async () => {
      const answer = await resolve(client, `mutation { updateAccountCollection(set: {code: "zz"}, filter: {id: {lte: 2}}) { affectedCount } }`);
      expect(failure(answer)).toEqual(["update impacts too many records"]);
      expect(await rows(client, "select count(*)::int as n from account where code is not null")).toEqual([{ n: 0 }]);
    });

    it("allows exactly atMost rows", async () => {
      const answer = await resolve(client, `mutation { updateAccountCollection(set: {code: "zz"}, atMost: 3) { affectedCount } }`);
      expect(answer).toEqual({ data: { updateAccountCollection: { affectedCount: 3 } } });
    });

    it("stops a delete past the limit, leaving every row in place", async () => {
      const answer = await resolve(client, `mutation { deleteFromAccountCollection(filter: {points: {gte: "20"}}, atMost: 1) { records { id } } }`);
      expect(failure(answer)).toEqual(["delete impacts too many records"]);
      expect(await rows(client, "select count(*)::int as n from account")).toEqual([{ n: 3 }]);
      expect(await rows(client, "select count(*)::int as n from blog")).toEqual([{ n: 3 }]);
    });

    it("comes from a variable as well", async () => {
      const q = `mutation($n: Int!) { deleteFromBlogCollection(filter: {ownerId: {eq: 1}}, atMost: $n) { affectedCount } }`;
      expect(failure(await resolve(client, q, { n: 1 }))).toEqual(["delete impacts too many records"]);
      expect(await resolve(client, q, { n: 2 })).toEqual({ data: { deleteFromBlogCollection: { affectedCount: 2 } } });
    });
  });

  describe("mutating functions", () => {
    it("are Mutation fields; stable functions stay on Query", async () => {
      expect(await resolve(client, `mutation { bumpPoints(accountId: 1, by: "5") }`)).toEqual({ data: { bumpPoints: "15" } });
      expect(await resolve(client, `mutation { bumpPoints(accountId: 1) }`)).toEqual({ data: { bumpPoints: "16" } });
      expect(failure(await resolve(client, `query { bumpPoints(accountId: 1) }`))).toEqual(['Unknown field "bumpPoints" on type Query']);
      expect(failure(await resolve(client, `mutation { accountEmails }`))).toEqual(['Unknown field "accountEmails" on type Mutation']);
    });

    it("return rows as objects and sets of rows as connections", async () => {
      const row = await resolve(client, `mutation { openBlog(owner: 3, title: "new") { __typename title owner { email } } }`);
      expect(row).toEqual({ data: { openBlog: { __typename: "Blog", title: "new", owner: { email: "c@x.com" } } } });
      const set = await resolve(
        client,
        `mutation { copyBlogs(fromOwner: 1, toOwner: 2, first: 1) {
          totalCount pageInfo { hasNextPage } edges { node { title label ownerId owner { email } } } } }`,
      );
      expect(set).toEqual({
        data: { copyBlogs: { totalCount: 2, pageInfo: { hasNextPage: true }, edges: [{ node: { title: "one", label: "one!", ownerId: 2, owner: { email: "b@x.com" } } }] } },
      });
      // The function ran once although the page, its look-ahead and the count all read its rows.
      expect(await rows(client, "select owner_id, title from blog where id > 4 order by id")).toEqual([
        { owner_id: 2, title: "one" },
        { owner_id: 2, title: "two" },
      ]);
      // The same request with other values re-binds the cached statement to them.
      const copy = `mutation($from: Int!, $to: Int!) { copyBlogs(fromOwner: $from, toOwner: $to) { totalCount edges { node { ownerId title } } } }`;
      expect((await resolve(client, copy, { from: 1, to: 3 })).data.copyBlogs.totalCount).toBe(2);
      const more = await resolve(client, copy, { from: 3, to: 1 });
      expect(more.data.copyBlogs).toEqual({
        totalCount: 3,
        edges: [{ node: { ownerId: 1, title: "new" } }, { node: { ownerId: 1, title: "one" } }, { node: { ownerId: 1, title: "two" } }],
      });
      expect(await rows(client, "select count(*)::int as n from blog")).toEqual([{ n: 11 }]);
    });

    it("run in request order with the other mutation fields", async () => {
      const answer = await resolve(
        client,
        `mutation {
          first: updateAccountCollection(set: {points: "100"}, filter: {id: {eq: 3}}) { records { points } }
          bumpPoints(accountId: 3, by: "1")
          last: deleteFromAccountCollection(filter: {points: {eq: "101"}}) { records { id points } }
        }`,
      );
      expect(answer).toEqual({
        data: { first: { records: [{ points: "100" }] }, bumpPoints: "101", last: { records: [{ id: 3, points: "101" }] } },
      });
    });
  });

  describe("input coercion", () => {
    const insert = (object: string) => resolve(client, `mutation { insertIntoAccountCollection(objects: [${object}]) { affectedCount } }`);

    it("rejects unknown keys", async () => {
      expect(failure(await insert(`{email: "q@x.com", nope: 1}`))).toEqual(['Input for type AccountInsertInput contains extra keys ["nope"]']);
    });

    it("requires at least one object", async () => {
      expect(failure(await resolve(client, `mutation { insertIntoAccountCollection(objects: []) { affectedCount } }`))).toEqual([
        "At least one record must be provided to objects",
      ]);
    });

    it("requires at least one column to set", async () => {
      expect(failure(await resolve(client, `mutation { updateAccountCollection(set: {}) { affectedCount } }`))).toEqual([
        "At least one mapping must be provided to set argument",
      ]);
    });

    it("takes BigFloat from strings only", async () => {
      expect(failure(await insert(`{email: "q@x.com", balance: 1.5}`))).toEqual(["Invalid input for BigFloat type. String required"]);
    });

    it("takes BigInt from strings and numbers, digits only", async () => {
      expect(await insert(`{email: "q@x.com", points: "12"}`)).toEqual({ data: { insertIntoAccountCollection: { affectedCount: 1 } } });
      expect(await insert(`{email: "r@x.com", points: 12}`)).toEqual({ data: { insertIntoAccountCollection: { affectedCount: 1 } } });
      expect(failure(await insert(`{email: "s@x.com", points: "12abc"}`))).toEqual(["Invalid input for BigInt type"]);
      // A literal past 2^53 keeps every digit.
      expect(await insert(`{email: "t@x.com", points: 9007199254740993}`)).toEqual({ data: { insertIntoAccountCollection: { affectedCount: 1 } } });
      expect(await rows(client, "select points::text from account where email = 't@x.com'")).toEqual([{ points: "9007199254740993" }]);
      expect(failure(await insert(`{email: 90071992547409930}`))).toEqual(["Invalid input for String type"]);
    });

    it("takes JSON as a string holding JSON", async () => {
      expect(await insert(`{email: "q@x.com", profile: "{\\"a\\": [1, 2]}"}`)).toEqual({ data: { insertIntoAccountCollection: { affectedCount: 1 } } });
      expect(await rows(client, "select profile from account where email = 'q@x.com'")).toEqual([{ profile: { a: [1, 2] } }]);
    });

    it("checks varchar and char lengths before running anything", async () => {
      expect(failure(await insert(`{email: "much-too-long@x.com"}`))).toEqual(["Invalid input for String type. Maximum character length 12"]);
      expect(failure(await insert(`{email: "q@x.com", code: "abc"}`))).toEqual(["Invalid input for String type. Maximum character length 2"]);
      const update = await resolve(client, `mutation { updateAccountCollection(set: {code: "abc"}, filter: {id: {eq: 1}}) { affectedCount } }`);
      expect(failure(update)).toEqual(["Invalid input for String type. Maximum character length 2"]);
      expect(await rows(client, "select count(*)::int as n from account where code is not null")).toEqual([{ n: 0 }]);
    });

    it("takes enum values by their mapped names only", async () => {
      expect(failure(await insert(`{email: "q@x.com", mood: "so so"}`))).toEqual(["Invalid input for Mood type"]);
    });

    it("reports wrong value types", async () => {
      expect(failure(await insert(`{email: 5}`))).toEqual(["Invalid input for String type"]);
      expect(failure(await resolve(client, `mutation { insertIntoAccountCollection(objects: ["x"]) { affectedCount } }`))).toEqual([
        "Invalid input for AccountInsertInput type",
      ]);
    });
  });
});

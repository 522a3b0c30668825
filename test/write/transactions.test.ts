// One request, one unit of work: the mutation fields of a request run in order, and any failure
// (a constraint, atMost, a raising function, a trigger, row level security) undoes all of them,
// whether the request runs on its own or inside the caller's transaction.
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { databaseWithExtension, failure, resolve, rows } from "./support";

describe("mutation requests are all or nothing", () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    ({ db, client } = await databaseWithExtension(`
      create table item(
        id int primary key,
        name text not null check (name <> 'forbidden'),
        qty int not null default 0
      );
      create function fail_loudly(reason text) returns int language plpgsql volatile as $$
      begin
        raise exception 'refused: %', reason;
      end $$;
      create function guard_qty() returns trigger language plpgsql as $$
      begin
        if new.qty > 100 then raise exception 'qty % is over the limit', new.qty; end if;
        return new;
      end $$;
      create trigger item_guard before insert or update on item for each row execute function guard_qty();
    `));
  });
  afterAll(async () => db.drop());

  beforeEach(async () => {
    await client.query(`truncate item; insert into item values (1, 'one', 1), (2, 'two', 2)`);
  });

  const state = () => rows(client, "select id, name, qty from item order by id");
  const initial = [
    { id: 1, name: "one", qty: 1 },
    { id: 2, name: "two", qty: 2 },
  ];

  it("runs every field when all succeed, later fields seeing earlier ones", async () => {
    const answer = await resolve(
      client,
      `mutation {
        a: insertIntoItemCollection(objects: {id: 3, name: "three"}) { affectedCount }
        b: updateItemCollection(set: {qty: 30}, filter: {id: {eq: 3}}) { records { id qty } }
        c: deleteFromItemCollection(filter: {id: {eq: 1}}) { records { id } }
      }`,
    );
    expect(answer).toEqual({ data: { a: { affectedCount: 1 }, b: { records: [{ id: 3, qty: 30 }] }, c: { records: [{ id: 1 }] } } });
    expect(await state()).toEqual([
      { id: 2, name: "two", qty: 2 },
      { id: 3, name: "three", qty: 30 },
    ]);
  });

  it("undoes the first field when the second violates a constraint", async () => {
    const answer = await resolve(
      client,
      `mutation {
        first: insertIntoItemCollection(objects: {id: 3, name: "three"}) { affectedCount }
        second: insertIntoItemCollection(objects: {id: 4, name: "forbidden"}) { affectedCount }
      }`,
    );
    expect(failure(answer)).toEqual(['new row for relation "item" violates check constraint "item_name_check"']);
    expect(await state()).toEqual(initial);
  });

  it("undoes earlier fields when a later one passes atMost", async () => {
    const answer = await resolve(
      client,
      `mutation {
        first: deleteFromItemCollection(filter: {id: {eq: 1}}) { affectedCount }
        second: updateItemCollection(set: {qty: 9}, atMost: 0) { affectedCount }
      }`,
    );
    expect(failure(answer)).toEqual(["update impacts too many records"]);
    expect(await state()).toEqual(initial);
  });

  it("undoes earlier fields when a mutating function raises", async () => {
    const answer = await resolve(
      client,
      `mutation {
        first: updateItemCollection(set: {name: "renamed"}, filter: {id: {eq: 2}}) { affectedCount }
        failLoudly(reason: "no")
      }`,
    );
    expect(failure(answer)).toEqual(["refused: no"]);
    expect(await state()).toEqual(initial);
  });

  it("surfaces a trigger's error and undoes the request", async () => {
    const answer = await resolve(
      client,
      `mutation {
        first: insertIntoItemCollection(objects: [{id: 3, name: "three"}]) { affectedCount }
        second: updateItemCollection(set: {qty: 500}, filter: {id: {eq: 1}}) { affectedCount }
      }`,
    );
    expect(failure(answer)).toEqual(["qty 500 is over the limit"]);
    expect(await state()).toEqual(initial);
  });

  it("undoes the request but not the caller's own work inside an open transaction", async () => {
    await client.query("begin");
    try {
      await client.query("insert into item values (10, 'mine', 0)");
      const failed = await resolve(
        client,
        `mutation {
          a: insertIntoItemCollection(objects: {id: 3, name: "three"}) { affectedCount }
          b: insertIntoItemCollection(objects: {id: 1, name: "duplicate"}) { affectedCount }
        }`,
      );
      expect(failure(failed)).toEqual(['duplicate key value violates unique constraint "item_pkey"']);
      // The transaction is still usable, and a later request in it takes effect.
      const ok = await resolve(client, `mutation { insertIntoItemCollection(objects: {id: 4, name: "four"}) { affectedCount } }`);
      expect(ok).toEqual({ data: { insertIntoItemCollection: { affectedCount: 1 } } });
      expect((await state()).map((r: any) => r.id)).toEqual([1, 2, 4, 10]);
    } finally {
      await client.query("rollback");
    }
    expect(await state()).toEqual(initial);
  });

  it("reports a planning error of a later field before anything runs", async () => {
    const answer = await resolve(
      client,
      `mutation {
        first: insertIntoItemCollection(objects: {id: 3, name: "three"}) { affectedCount }
        second: insertIntoItemCollection(objects: {id: 4, name: "four", colour: "red"}) { affectedCount }
      }`,
    );
    expect(failure(answer)).toEqual(['Input for type ItemInsertInput contains extra keys ["colour"]']);
    expect(await state()).toEqual(initial);
  });
});

describe("row level security on mutations", () => {
  let db: TestDatabase;
  let admin: pg.Client;
  let alice: pg.Client;

  beforeAll(async () => {
    db = await freshDatabase();
    admin = await db.connect();
    await admin.query(`
      create extension pg_graphql cascade;
      comment on schema public is '@graphql({"inflect_names": true})';
      do $$ begin
        if not exists (select 1 from pg_roles where rolname = 'write_alice') then create role write_alice login; end if;
      end $$;
      grant usage on schema graphql to write_alice;
      create table note(
        id int primary key,
        owner text not null default current_user,
        body text not null
      );
      grant select, insert, update, delete on note to write_alice;
      alter table note enable row level security;
      create policy note_own on note for all to write_alice
        using (owner = current_user) with check (owner = current_user);
    `);
    alice = await db.connect({ user: "write_alice" });
  });
  afterAll(async () => db.drop());

  beforeEach(async () => {
    await admin.query(`truncate note; insert into note values (1, 'write_alice', 'mine'), (2, 'someone_else', 'theirs')`);
  });

  const state = () => rows(admin, "select id, owner, body from note order by id");
  const initial = [
    { id: 1, owner: "write_alice", body: "mine" },
    { id: 2, owner: "someone_else", body: "theirs" },
  ];

  it("lets the role change its own rows", async () => {
    const answer = await resolve(alice, `mutation { updateNoteCollection(set: {body: "edited"}, atMost: 5) { affectedCount records { id } } }`);
    expect(answer).toEqual({ data: { updateNoteCollection: { affectedCount: 1, records: [{ id: 1 }] } } });
  });

  it("refuses an insert the with-check policy forbids, and undoes the request", async () => {
    const answer = await resolve(
      alice,
      `mutation {
        ok: insertIntoNoteCollection(objects: {id: 3, body: "fine"}) { affectedCount }
        bad: insertIntoNoteCollection(objects: {id: 4, owner: "someone_else", body: "forged"}) { affectedCount }
      }`,
    );
    expect(failure(answer)).toEqual(['new row violates row-level security policy for table "note"']);
    expect(await state()).toEqual(initial);
  });

  it("refuses an update that would move a row out of the role's reach", async () => {
    const answer = await resolve(alice, `mutation { updateNoteCollection(set: {owner: "someone_else"}, filter: {id: {eq: 1}}) { affectedCount } }`);
    expect(failure(answer)).toEqual(['new row violates row-level security policy for table "note"']);
    expect(await state()).toEqual(initial);
  });

  it("does not see, update or delete other roles' rows", async () => {
    const update = await resolve(alice, `mutation { updateNoteCollection(set: {body: "hijacked"}, filter: {id: {eq: 2}}) { affectedCount records { id } } }`);
    expect(update).toEqual({ data: { updateNoteCollection: { affectedCount: 0, records: [] } } });
    const remove = await resolve(alice, `mutation { deleteFromNoteCollection(filter: {id: {eq: 2}}) { affectedCount } }`);
    expect(remove).toEqual({ data: { deleteFromNoteCollection: { affectedCount: 0 } } });
    expect(await state()).toEqual(initial);
  });
});

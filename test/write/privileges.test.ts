// Privileges decide the write API: entry points exist only where the calling role holds the
// matching privilege, input fields only for columns it may write, and no Mutation type at all
// when the role can change nothing.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { failure, resolve, rows } from "./support";

const MUTATION_FIELDS = `{ __schema { mutationType { fields { name } } } }`;
const INPUT_FIELDS = (name: string) => `{ __type(name: "${name}") { inputFields { name } } }`;

describe("privileges gate the write API", () => {
  let db: TestDatabase;
  let admin: pg.Client;
  let reader: pg.Client;
  let editor: pg.Client;

  beforeAll(async () => {
    db = await freshDatabase();
    admin = await db.connect();
    await admin.query(`
      create extension pg_graphql cascade;
      comment on schema public is '@graphql({"inflect_names": true, "introspection": true})';
      do $$ begin
        if not exists (select 1 from pg_roles where rolname = 'gate_reader') then create role gate_reader login; end if;
        if not exists (select 1 from pg_roles where rolname = 'gate_editor') then create role gate_editor login; end if;
      end $$;
      grant usage on schema graphql to gate_reader, gate_editor;
      create table project(
        id serial primary key,
        title text not null,
        secret text,
        total int generated always as (id * 2) stored,
        seq int generated always as identity
      );
      insert into project(title, secret) values ('first', 's');
      grant select on project to gate_reader, gate_editor;
      grant insert (title), update (title) on project to gate_editor;
      grant usage on all sequences in schema public to gate_editor;
      create table memo(id serial primary key, title text, secret text default 'hidden');
      grant select (id, title), insert (title), update (title) on memo to gate_editor;
      grant usage on sequence memo_id_seq to gate_editor;
      create function touch_project() returns int language sql volatile as $$ select 1 $$;
      revoke execute on function touch_project() from public;
      grant execute on function touch_project() to gate_editor;
    `);
    reader = await db.connect({ user: "gate_reader" });
    editor = await db.connect({ user: "gate_editor" });
  });
  afterAll(async () => db.drop());

  it("gives a role without write privileges no Mutation type", async () => {
    expect(await resolve(reader, `{ __schema { mutationType { name } } }`)).toEqual({ data: { __schema: { mutationType: null } } });
    const answer = await resolve(reader, `mutation { insertIntoProjectCollection(objects: {title: "x"}) { affectedCount } }`);
    expect(failure(answer)).toEqual(["Unknown type Mutation"]);
    expect(await rows(admin, "select count(*)::int as n from project")).toEqual([{ n: 1 }]);
  });

  it("exposes only the entry points the role holds privileges for", async () => {
    const answer = await resolve(editor, MUTATION_FIELDS);
    const names = answer.data.__schema.mutationType.fields.map((f: { name: string }) => f.name).sort();
    expect(names).toEqual(["insertIntoMemoCollection", "insertIntoProjectCollection", "touchProject", "updateMemoCollection", "updateProjectCollection"]);
    expect(failure(await resolve(editor, `mutation { deleteFromProjectCollection(atMost: 10) { affectedCount } }`))).toEqual([
      'Unknown field "deleteFromProjectCollection" on type Mutation',
    ]);
    expect(await rows(admin, "select count(*)::int as n from project")).toEqual([{ n: 1 }]);
  });

  it("takes input only for columns the role may write; generated and identity columns never", async () => {
    const insert = await resolve(editor, INPUT_FIELDS("ProjectInsertInput"));
    expect(insert.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual(["title"]);
    const update = await resolve(editor, INPUT_FIELDS("ProjectUpdateInput"));
    expect(update.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual(["title"]);
    const admins = await resolve(admin, INPUT_FIELDS("ProjectInsertInput"));
    expect(admins.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual(["title", "secret"]);
  });

  it("refuses a column outside the role's grant as an unknown key", async () => {
    const answer = await resolve(editor, `mutation { insertIntoProjectCollection(objects: {title: "x", secret: "y"}) { affectedCount } }`);
    expect(failure(answer)).toEqual(['Input for type ProjectInsertInput contains extra keys ["secret"]']);
  });

  it("writes what the grant allows, as the calling role", async () => {
    const answer = await resolve(editor, `mutation { insertIntoProjectCollection(objects: {title: "second"}) { records { title total } } }`);
    expect(answer).toEqual({ data: { insertIntoProjectCollection: { records: [{ title: "second", total: 4 }] } } });
    const update = await resolve(editor, `mutation { updateProjectCollection(set: {title: "renamed"}, filter: {title: {eq: "second"}}) { affectedCount } }`);
    expect(update).toEqual({ data: { updateProjectCollection: { affectedCount: 1 } } });
    expect(await rows(admin, "select title, secret from project order by id")).toEqual([
      { title: "first", secret: "s" },
      { title: "renamed", secret: null },
    ]);
  });

  it("returns records when the role may read only some columns", async () => {
    const inserted = await resolve(editor, `mutation { insertIntoMemoCollection(objects: {title: "t"}) { affectedCount records { id title nodeId } } }`);
    expect(inserted.errors).toBeUndefined();
    expect(inserted.data.insertIntoMemoCollection.records[0]).toMatchObject({ id: 1, title: "t" });
    const updated = await resolve(editor, `mutation { updateMemoCollection(set: {title: "u"}, filter: {title: {eq: "t"}}) { records { title } } }`);
    expect(updated).toEqual({ data: { updateMemoCollection: { records: [{ title: "u" }] } } });
    expect(await rows(admin, "select title, secret from memo")).toEqual([{ title: "u", secret: "hidden" }]);
  });

  it("leaves out mutating functions the role may not execute", async () => {
    expect(await resolve(editor, `mutation { touchProject }`)).toEqual({ data: { touchProject: 1 } });
    const adminOnly = await resolve(reader, `{ __schema { mutationType { name } } }`);
    expect(adminOnly.data.__schema.mutationType).toBeNull();
  });
});

// Nested inserts (opt-in): related records given inside an insert's objects, to any depth (a
// to-one parent before the row, to-many children and a reverse one-to-one after it), each foreign
// key filled from the row it refers to. Checked against the tables afterwards; also composite and
// self-referencing keys, two keys to one table, a policy that checks the parent (which needs the
// parent inserted by an earlier statement), grants, and errors undoing the whole request.
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { data, databaseWithExtension, failure, loginRole, resolve, rows, statementsOf } from "./support";

describe("nested inserts", () => {
  let db: TestDatabase;
  let admin: pg.Client;
  let writer: pg.Client;

  beforeAll(async () => {
    ({ db, client: admin } = await databaseWithExtension(`
      comment on schema public is '@graphql({"inflect_names": true, "introspection": true, "nested_mutations": true})';
      create table author(id serial primary key, name text not null);
      create table profile(id serial primary key, author_id int not null unique references author(id), bio text);
      create table book(id serial primary key, title text not null, author_id int not null references author(id), editor_id int references author(id));
      comment on constraint book_editor_id_fkey on book is '@graphql({"local_name": "editedBooks"})';
      create table chapter(id serial primary key, book_id int not null references book(id), title text not null check (title <> ''));
      create table folder(id serial primary key, label text not null, parent_id int references folder(id));
      create table region(country text, code text, name text, primary key (country, code));
      create table office(id serial primary key, country text not null, code text not null, foreign key (country, code) references region(country, code));
      ${loginRole("feat_ni_writer")}
      grant select, insert on author, book, chapter to feat_ni_writer;
      grant select on profile to feat_ni_writer;
      grant insert (bio) on profile to feat_ni_writer;
      grant usage on all sequences in schema public to feat_ni_writer;
      alter table chapter enable row level security;
      create policy read on chapter for select to feat_ni_writer using (true);
      -- The parent must already be there, open: a policy reading another table sees only what
      -- statements before this one wrote.
      create policy open_books on chapter for insert to feat_ni_writer
        with check (exists (select 1 from book b where b.id = book_id and b.title <> 'locked'));
    `));
    writer = await db.connect({ user: "feat_ni_writer" });
  });
  afterAll(async () => db.drop());

  beforeEach(async () => {
    await admin.query("truncate author, profile, book, chapter, folder, region, office restart identity cascade");
  });

  const counts = async () =>
    (await rows(admin, `select (select count(*) from author)::int as authors, (select count(*) from book)::int as books,
      (select count(*) from chapter)::int as chapters, (select count(*) from profile)::int as profiles`))[0];

  it("inserts a tree of related records, each key filled from the row it refers to", async () => {
    const answer = await data(admin, `mutation { insertIntoAuthorCollection(objects: [
      {name: "Ann", profile: {object: {bio: "writes"}}, bookCollection: {objects: [
        {title: "One", editor: {object: {name: "Ed"}}, chapterCollection: {objects: [{title: "1.1"}, {title: "1.2"}]}},
        {title: "Two", chapterCollection: {objects: []}}
      ]}},
      {name: "Bob", bookCollection: {objects: [{title: "Three", chapterCollection: {objects: [{title: "3.1"}]}}]}}
    ]) { affectedCount records { name profile { bio } bookCollection { edges { node { title editor { name }
      chapterCollection { edges { node { title } } } } } } } } }`);
    expect(answer.insertIntoAuthorCollection).toEqual({
      affectedCount: 2,
      records: [
        {
          name: "Ann",
          profile: { bio: "writes" },
          bookCollection: {
            edges: [
              { node: { title: "One", editor: { name: "Ed" }, chapterCollection: { edges: [{ node: { title: "1.1" } }, { node: { title: "1.2" } }] } } },
              { node: { title: "Two", editor: null, chapterCollection: { edges: [] } } },
            ],
          },
        },
        { name: "Bob", profile: null, bookCollection: { edges: [{ node: { title: "Three", editor: null, chapterCollection: { edges: [{ node: { title: "3.1" } }] } } }] } },
      ],
    });
    expect(
      await rows(admin, `select b.title, a.name as author, e.name as editor, array(select c.title from chapter c where c.book_id = b.id order by c.id) as chapters
        from book b join author a on a.id = b.author_id left join author e on e.id = b.editor_id order by b.id`),
    ).toEqual([
      { title: "One", author: "Ann", editor: "Ed", chapters: ["1.1", "1.2"] },
      { title: "Two", author: "Ann", editor: null, chapters: [] },
      { title: "Three", author: "Bob", editor: null, chapters: ["3.1"] },
    ]);
    expect(await rows(admin, "select a.name, p.bio from profile p join author a on a.id = p.author_id")).toEqual([{ name: "Ann", bio: "writes" }]);
  });

  it("inserts a to-one parent first and refers to it", async () => {
    const answer = await data(admin, `mutation { insertIntoBookCollection(objects: [
      {title: "A", author: {object: {name: "New"}}}, {title: "B", author: {object: {name: "Other"}}, editor: {object: {name: "Ed"}}}
    ]) { affectedCount records { title author { name } editor { name } } } }`);
    expect(answer.insertIntoBookCollection.records).toEqual([
      { title: "A", author: { name: "New" }, editor: null },
      { title: "B", author: { name: "Other" }, editor: { name: "Ed" } },
    ]);
    expect(await counts()).toEqual({ authors: 3, books: 2, chapters: 0, profiles: 0 });
  });

  it("runs one statement per table level, then the selection", async () => {
    const { response, sql } = await statementsOf(admin, `mutation { insertIntoBookCollection(objects: [{title: "A", author: {object: {name: "N"}},
      chapterCollection: {objects: [{title: "a1"}, {title: "a2"}]}}]) { affectedCount records { title chapterCollection { edges { node { title } } } } } }`);
    expect(response.errors).toBeUndefined();
    expect(sql).toHaveLength(4);
    expect(sql.slice(0, 3).map((s) => s.match(/insert into "public"\."(\w+)"/)?.[1])).toEqual(["author", "book", "chapter"]);
    for (const s of sql.slice(0, 3)) expect(s.match(/insert into/g)).toHaveLength(1);
    expect(sql[3]).toMatch(/^select .* from "pg_catalog"\."jsonb_array_elements"/);
    await admin.query("truncate author, book, chapter restart identity cascade");
  });

  it("follows self-referencing and composite keys", async () => {
    const nodes = await data(admin, `mutation { insertIntoFolderCollection(objects: [{label: "mid", parent: {object: {label: "top"}},
      folderCollection: {objects: [{label: "kid", folderCollection: {objects: [{label: "grandkid"}]}}]}}]) { records { label parent { label } } } }`);
    expect(nodes.insertIntoFolderCollection.records).toEqual([{ label: "mid", parent: { label: "top" } }]);
    expect(await rows(admin, "select n.label, p.label as parent from folder n left join folder p on p.id = n.parent_id order by n.id")).toEqual([
      { label: "top", parent: null },
      { label: "mid", parent: "top" },
      { label: "kid", parent: "mid" },
      { label: "grandkid", parent: "kid" },
    ]);
    const offices = await data(admin, `mutation { insertIntoOfficeCollection(objects: [{region: {object: {country: "fr", code: "par", name: "Paris"}}}]) {
      records { country code region { name } } } }`);
    expect(offices.insertIntoOfficeCollection.records).toEqual([{ country: "fr", code: "par", region: { name: "Paris" } }]);
  });

  it("lets a child's policy check the parent inserted before it", async () => {
    const ok = await data(writer, `mutation { insertIntoAuthorCollection(objects: [{name: "W", bookCollection: {objects: [
      {title: "open", chapterCollection: {objects: [{title: "c"}]}}]}}]) { affectedCount } }`);
    expect(ok.insertIntoAuthorCollection.affectedCount).toBe(1);
    expect(await counts()).toEqual({ authors: 1, books: 1, chapters: 1, profiles: 0 });
    const refused = await resolve(writer, `mutation { insertIntoAuthorCollection(objects: [{name: "L", bookCollection: {objects: [
      {title: "locked", chapterCollection: {objects: [{title: "c"}]}}]}}]) { affectedCount } }`);
    expect(failure(refused)[0]).toMatch(/row-level security policy/);
    expect(await counts()).toEqual({ authors: 1, books: 1, chapters: 1, profiles: 0 });
  });

  it("undoes every row when one fails", async () => {
    const answer = await resolve(admin, `mutation { insertIntoAuthorCollection(objects: [{name: "A", bookCollection: {objects: [
      {title: "T", chapterCollection: {objects: [{title: "fine"}, {title: ""}]}}]}}]) { affectedCount } }`);
    expect(failure(answer)[0]).toMatch(/violates check constraint "chapter_title_check"/);
    expect(await counts()).toEqual({ authors: 0, books: 0, chapters: 0, profiles: 0 });
  });

  it("refuses a key the nested insert fills, given by hand", async () => {
    const child = await resolve(admin, `mutation { insertIntoBookCollection(objects: [{title: "T", authorId: 1, chapterCollection: {objects: [{title: "c", bookId: 7}]}}]) { affectedCount } }`);
    expect(failure(child)).toEqual(['"bookId" of ChapterInsertInput is filled from the related record the nested insert makes, and cannot be given']);
    const parent = await resolve(admin, `mutation { insertIntoBookCollection(objects: [{title: "T", authorId: 1, author: {object: {name: "x"}}}]) { affectedCount } }`);
    expect(failure(parent)).toEqual(['"authorId" of BookInsertInput is filled from the related record the nested insert makes, and cannot be given']);
    expect(await counts()).toEqual({ authors: 0, books: 0, chapters: 0, profiles: 0 });
  });

  it("offers a nested field only where the role may insert the related rows and their key", async () => {
    const inputFields = async (client: pg.Client, name: string) =>
      (await data(client, `{ __type(name: "${name}") { inputFields { name } } }`)).__type.inputFields.map((f: { name: string }) => f.name);
    expect(await inputFields(admin, "AuthorInsertInput")).toEqual(["name", "bookCollection", "editedBooks", "profile"]);
    // The writer may insert profiles, but not their author_id.
    expect(await inputFields(writer, "AuthorInsertInput")).toEqual(["name", "bookCollection", "editedBooks"]);
    expect(await inputFields(writer, "BookInsertInput")).toEqual(["title", "authorId", "editorId", "author", "editor", "chapterCollection"]);
    expect(await inputFields(admin, "ChapterArrRelInsertInput")).toEqual(["objects"]);
    expect(await inputFields(admin, "AuthorObjRelInsertInput")).toEqual(["object"]);
  });
});

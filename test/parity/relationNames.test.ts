// Relationship field names as pg_graphql 1.6 gives them without a local_name/foreign_name
// directive: a key of one column ending in `Id` (inflection off) or `_id` (inflection on) names
// the to-one field after the rest of the column; any other key after the referenced type. The
// referenced table's schema decides the to-one field, the referencing table's the reverse one; of
// two relationships with one name, the last one answers.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { resolveInNode } from "../read/nodeResolve";

const SCHEMA = `
  create table "Org"(id int primary key, "parentId" int references "Org"(id), name text);
  create table account(id int primary key, email text not null);
  create table blog(id int primary key, parent_id int references account(id), "authorId" int references account(id), title text);

  create schema inflected;
  comment on schema inflected is '@graphql({"inflect_names": true})';
  create table inflected.member(id int primary key, email text);
  create table inflected.blog_post(id int primary key, main_author_id int references inflected.member(id), "editorId" int references inflected.member(id));

  -- The key's two ends in schemas that inflect differently.
  create schema people;
  create table people.person(id int primary key, name text);
  create schema writing;
  comment on schema writing is '@graphql({"inflect_names": true})';
  create table writing.blog_entry(id int primary key, author_id int references people.person(id));

  -- Two keys to one table whose fields get one name.
  create table note(id int primary key, created_by int, updated_by int,
    constraint note_1_created foreign key (created_by) references account(id),
    constraint note_2_updated foreign key (updated_by) references account(id));

  insert into "Org" values (1, null, 'root'), (2, 1, 'child'), (3, 1, 'other child');
  insert into account values (1, 'one@x.com'), (2, 'two@x.com');
  insert into blog values (1, 1, 2, 'first');
  insert into inflected.member values (1, 'm1@x.com'), (2, 'm2@x.com');
  insert into inflected.blog_post values (1, 1, 2);
  insert into people.person values (1, 'Ada');
  insert into writing.blog_entry values (1, 1);
  insert into note values (1, 1, 2);
`;

describe("relationship field names", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    client = await db.connect();
    await client.query(SCHEMA);
    await client.query("set search_path = public, inflected, people, writing");
  });
  afterAll(async () => db.drop());

  const ask = async (query: string) => {
    const r = (await resolveInNode(client, query)).response;
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return r.data;
  };
  const fieldsOf = async (type: string): Promise<string[]> => {
    await client.query(`comment on schema public is '@graphql({"introspection": true})'`);
    try {
      const r = (await resolveInNode(client, `{ __type(name: "${type}") { fields { name } } }`)).response;
      return r.data.__type.fields.map((f: { name: string }) => f.name);
    } finally {
      await client.query("comment on schema public is null");
    }
  };

  it("strip a trailing Id from a camelCase column without inflection", async () => {
    const data = await ask(`{ orgCollection(filter: {id: {eq: 2}}) { edges { node { name parent { name } } } } }`);
    expect(data.orgCollection.edges).toEqual([{ node: { name: "child", parent: { name: "root" } } }]);
    const root = await ask(`{ orgCollection(filter: {id: {eq: 1}}) { edges { node { orgCollection { edges { node { id } } } } } } }`);
    expect(root.orgCollection.edges[0].node.orgCollection.edges).toEqual([{ node: { id: 2 } }, { node: { id: 3 } }]);
  });

  it("name a key column without the suffix after the referenced type", async () => {
    const data = await ask(`{ blogCollection { edges { node { title account { email } author { email } } } } }`);
    expect(data.blogCollection.edges).toEqual([{ node: { title: "first", account: { email: "one@x.com" }, author: { email: "two@x.com" } } }]);
    const fields = await fieldsOf("blog");
    expect(fields).toEqual(expect.arrayContaining(["parent_id", "authorId", "account", "author"]));
    expect(fields).not.toContain("parent");
  });

  it("strip a trailing _id and inflect the rest with inflection, and leave camelCase columns whole", async () => {
    const data = await ask(`{ blogPostCollection { edges { node { mainAuthor { email } member { email } editorId } } } }`);
    expect(data.blogPostCollection.edges).toEqual([{ node: { mainAuthor: { email: "m1@x.com" }, member: { email: "m2@x.com" }, editorId: 2 } }]);
  });

  it("follow the referenced schema's setting for the to-one field and the referencing one's for the reverse", async () => {
    // people does not inflect: author_id keeps its suffix there, so the field is the type's name.
    // writing inflects: the reverse field is blogEntryCollection, not blog_entryCollection.
    const data = await ask(`{ personCollection { edges { node { name blogEntryCollection { edges { node { person { name } } } } } } } }`);
    expect(data.personCollection.edges).toEqual([
      { node: { name: "Ada", blogEntryCollection: { edges: [{ node: { person: { name: "Ada" } } }] } } },
    ]);
  });

  it("give a name two keys share to the last key", async () => {
    const data = await ask(`{ noteCollection { edges { node { created_by updated_by account { id } } } } }`);
    expect(data.noteCollection.edges).toEqual([{ node: { created_by: 1, updated_by: 2, account: { id: 2 } } }]);
    const reverse = await ask(`{ accountCollection { edges { node { id noteCollection { edges { node { id } } } } } } }`);
    expect(reverse.accountCollection.edges.map((e: any) => [e.node.id, e.node.noteCollection.edges.length])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect((await fieldsOf("note")).filter((n) => n === "account")).toEqual(["account"]);
  });
});

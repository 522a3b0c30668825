// The features' switches: off unless a schema or table directive turns them on (a table's setting
// wins), the API then exactly pg_graphql's; where on, only the switched tables gain fields and
// types; feature type names another type holds, and relationship names a column holds, are left
// to their holders.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { data, databaseWithExtension, failure, resolve } from "./support";

const FEATURE_TYPE = /(OnConflict|UniqueConstraint|UpdateField|RelationFilter|ObjRelInsertInput|ArrRelInsertInput)$/;

describe("feature switches", () => {
  let db: TestDatabase;
  let client: pg.Client;

  const typeNames = async () => (await data(client, `{ __schema { types { name } } }`)).__schema.types.map((t: { name: string }) => t.name);
  const inputFields = async (name: string) =>
    (await data(client, `{ __type(name: "${name}") { inputFields { name } } }`)).__type?.inputFields?.map((f: { name: string }) => f.name) ?? null;
  const insertArgs = async (field: string) =>
    (await data(client, `{ __schema { mutationType { fields { name args { name } } } } }`)).__schema.mutationType.fields
      .find((f: { name: string }) => f.name === field)
      ?.args.map((a: { name: string }) => a.name);
  const introspection = async () => JSON.stringify(await data(client, `{ __schema { types { name fields { name args { name } } inputFields { name } enumValues { name } } } }`));

  beforeAll(async () => {
    ({ db, client } = await databaseWithExtension(`
      comment on schema public is '@graphql({"inflect_names": true, "introspection": true})';
      create table author(id serial primary key, name text unique);
      create table post(id serial primary key, author_id int references author(id), author text, title text);
      create table tag(id serial primary key, post_id int references post(id), label text);
    `));
  });
  afterAll(async () => db.drop());

  it("changes nothing while no switch is on, nor where every switch is off", async () => {
    const before = await introspection();
    expect((await typeNames()).filter((n: string) => FEATURE_TYPE.test(n))).toEqual([]);
    expect(await inputFields("PostFilter")).toEqual(["id", "authorId", "author", "title", "nodeId", "and", "or", "not"]);
    expect(await inputFields("AuthorOrderBy")).toEqual(["id", "name"]);
    expect(await insertArgs("insertIntoAuthorCollection")).toEqual(["objects"]);
    await client.query(`comment on schema public is '@graphql({"inflect_names": true, "introspection": true, "upsert": false,
      "nested_mutations": false, "relation_filters": false, "relation_order_by": false})'`);
    expect(await introspection()).toEqual(before);
  });

  it("turns a feature on for a schema's tables, and a table's setting wins", async () => {
    await client.query(`
      comment on schema public is '@graphql({"inflect_names": true, "introspection": true, "relation_filters": true, "upsert": true})';
      comment on table tag is '@graphql({"relation_filters": false})';
      comment on table author is '@graphql({"relation_order_by": true, "nested_mutations": true})';
    `);
    try {
      expect(await inputFields("AuthorFilter")).toEqual(["id", "name", "nodeId", "and", "or", "not", "postCollection"]);
      // post's `author` column keeps its filter; the relationship of that name is left out.
      expect(await inputFields("PostFilter")).toEqual(["id", "authorId", "author", "title", "nodeId", "and", "or", "not", "tagCollection"]);
      expect(await inputFields("TagFilter")).toEqual(["id", "postId", "label", "nodeId", "and", "or", "not"]);
      expect(await inputFields("PostRelationFilter")).toEqual(["some", "every", "none"]);
      expect(await inputFields("AuthorOrderBy")).toEqual(["id", "name"]);
      expect(await inputFields("PostOrderBy")).toEqual(["id", "authorId", "author", "title"]);
      expect(await inputFields("AuthorInsertInput")).toEqual(["name", "postCollection"]);
      expect(await inputFields("PostInsertInput")).toEqual(["authorId", "author", "title"]);
      expect(await insertArgs("insertIntoAuthorCollection")).toEqual(["objects", "onConflict"]);
      // Its primary key arbitrates too.
      expect(await insertArgs("insertIntoPostCollection")).toEqual(["objects", "onConflict"]);
      const combined = await resolve(client, `mutation { insertIntoAuthorCollection(objects: [{name: "x", postCollection: {objects: [{title: "t"}]}}],
        onConflict: {constraint: author_name_key, updateFields: [name]}) { affectedCount } }`);
      expect(failure(combined)).toEqual(["onConflict cannot be combined with related records inserted along"]);
    } finally {
      await client.query(`comment on schema public is '@graphql({"inflect_names": true, "introspection": true})';
        comment on table tag is null; comment on table author is null;`);
    }
  });

  it("leaves a feature type whose name another type holds to its holder", async () => {
    await client.query(`
      create table author_on_conflict(id int primary key);
      create table post_relation_filter(id int primary key);
      comment on schema public is '@graphql({"inflect_names": true, "introspection": true, "relation_filters": true, "upsert": true})';
    `);
    try {
      const names = await typeNames();
      expect(names).toContain("AuthorOnConflict");
      expect(names).not.toContain("AuthorUniqueConstraint");
      expect(await insertArgs("insertIntoAuthorCollection")).toEqual(["objects"]);
      expect(await inputFields("AuthorOnConflict")).toBeNull();
      expect(await inputFields("PostRelationFilter")).toBeNull();
      // The to-many filter needs the taken type; the to-one one does not.
      expect(await inputFields("AuthorFilter")).toEqual(["id", "name", "nodeId", "and", "or", "not"]);
      expect(await inputFields("TagFilter")).toEqual(["id", "postId", "label", "nodeId", "and", "or", "not", "post"]);
      expect((await data(client, `{ authorOnConflictCollection { edges { node { id } } } }`)).authorOnConflictCollection.edges).toEqual([]);
    } finally {
      await client.query(`drop table author_on_conflict, post_relation_filter;
        comment on schema public is '@graphql({"inflect_names": true, "introspection": true})';`);
    }
  });

  it("reads a switch that is not a boolean as a directive error", async () => {
    await client.query(`comment on table author is '@graphql({"upsert": "yes"})'`);
    try {
      const answer = await resolve(client, `{ __typename }`);
      expect(answer.errors?.[0]?.message).toBe('Error while loading schema, check comment directives. invalid type: string "yes", expected a boolean');
    } finally {
      await client.query(`comment on table author is null`);
    }
  });
});

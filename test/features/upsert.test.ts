// Upserts (opt-in): `insertInto<Type>Collection(objects:, onConflict: {constraint, updateFields,
// filter})`: which constraints and fields the role is offered, DO UPDATE / DO NOTHING / a filter
// on the existing row checked against the table afterwards, and the errors (a key twice, an
// unknown constraint, a policy refusing the update) leaving the table as it was.
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { data, databaseWithExtension, failure, loginRole, resolve, rows } from "./support";

const upsert = (objects: string, onConflict: string, select = "affectedCount records { id sku name qty }") =>
  `mutation { insertIntoItemCollection(objects: ${objects}, onConflict: ${onConflict}) { ${select} } }`;

describe("upserts", () => {
  let db: TestDatabase;
  let admin: pg.Client;
  let writer: pg.Client;

  beforeAll(async () => {
    ({ db, client: admin } = await databaseWithExtension(`
      comment on schema public is '@graphql({"inflect_names": true, "introspection": true, "upsert": true})';
      create table item(
        id serial primary key,
        sku text not null constraint item_sku_key unique,
        name text,
        qty int not null default 0,
        note text
      );
      create unique index item_name_idx on item(name);
      create table slot(id int primary key, code text constraint slot_code_key unique deferrable);
      create table odd(id int constraint "odd pk" primary key, v text);
      create table pair(a int, b int, v text, primary key (a, b));
      create table quiet(id int primary key, v text);
      comment on table quiet is '@graphql({"upsert": false})';
      ${loginRole("feat_up_writer")}
      grant select (id, sku, name, qty), insert (sku, name, qty), update (name, note) on item to feat_up_writer;
      grant usage on sequence item_id_seq to feat_up_writer;
      alter table item enable row level security;
      create policy see on item for select to feat_up_writer using (true);
      create policy add on item for insert to feat_up_writer with check (true);
      create policy small on item for update to feat_up_writer using (qty < 100);
    `));
    writer = await db.connect({ user: "feat_up_writer" });
  });
  afterAll(async () => db.drop());

  beforeEach(async () => {
    await admin.query(`
      truncate item, pair restart identity;
      insert into item(sku, name, qty) values ('a', 'apple', 1), ('b', 'banana', 10), ('c', 'cherry', 500);
      insert into pair values (1, 1, 'x');
    `);
  });

  const table = async () => rows(admin, "select id, sku, name, qty from item order by id");

  it("updates the conflicting rows with the fields named, and inserts the others", async () => {
    const answer = await data(admin, upsert(`[{sku: "a", name: "avocado", qty: 7}, {sku: "d", name: "date", qty: 4}]`, `{constraint: item_sku_key, updateFields: [name]}`));
    expect(answer.insertIntoItemCollection).toEqual({
      affectedCount: 2,
      records: [
        { id: 1, sku: "a", name: "avocado", qty: 1 },
        { id: 5, sku: "d", name: "date", qty: 4 },
      ],
    });
    expect(await table()).toEqual([
      { id: 1, sku: "a", name: "avocado", qty: 1 },
      { id: 2, sku: "b", name: "banana", qty: 10 },
      { id: 3, sku: "c", name: "cherry", qty: 500 },
      { id: 5, sku: "d", name: "date", qty: 4 },
    ]);
  });

  it("leaves conflicting rows as they are without fields to update, counting only the inserted", async () => {
    const answer = await data(admin, upsert(`[{sku: "a", name: "x"}, {sku: "e", name: "elder"}]`, `{constraint: item_sku_key, updateFields: []}`));
    expect(answer.insertIntoItemCollection.affectedCount).toBe(1);
    expect(answer.insertIntoItemCollection.records.map((r: { sku: string }) => r.sku)).toEqual(["e"]);
    expect((await table()).find((r: any) => r.sku === "a")).toEqual({ id: 1, sku: "a", name: "apple", qty: 1 });
  });

  it("updates only existing rows the filter matches", async () => {
    const answer = await data(
      admin,
      upsert(`[{sku: "a", qty: 2}, {sku: "b", qty: 20}]`, `{constraint: item_sku_key, updateFields: [qty], filter: {qty: {gt: 5}}}`, "affectedCount records { sku qty }"),
    );
    expect(answer.insertIntoItemCollection).toEqual({ affectedCount: 1, records: [{ sku: "b", qty: 20 }] });
    expect((await table()).map((r: any) => r.qty)).toEqual([1, 20, 500]);
  });

  it("takes the arguments as variables, and a composite key", async () => {
    const query = `mutation($objects: [PairInsertInput!]!, $onConflict: PairOnConflict) {
      insertIntoPairCollection(objects: $objects, onConflict: $onConflict) { affectedCount records { a b v } } }`;
    const answer = await data(admin, query, { objects: [{ a: 1, b: 1, v: "y" }, { a: 1, b: 2, v: "z" }], onConflict: { constraint: "pair_pkey", updateFields: ["v"] } });
    expect(answer.insertIntoPairCollection.records).toEqual([{ a: 1, b: 1, v: "y" }, { a: 1, b: 2, v: "z" }]);
    expect(await rows(admin, "select a, b, v from pair order by a, b")).toEqual([{ a: 1, b: 1, v: "y" }, { a: 1, b: 2, v: "z" }]);
  });

  it("answers the same key twice in one call with PostgreSQL's error, changing nothing", async () => {
    const answer = await resolve(admin, upsert(`[{sku: "a", name: "one"}, {sku: "a", name: "two"}]`, `{constraint: item_sku_key, updateFields: [name]}`));
    expect(failure(answer)).toEqual(["ON CONFLICT DO UPDATE command cannot affect row a second time"]);
    expect((await table()).map((r: any) => r.name)).toEqual(["apple", "banana", "cherry"]);
  });

  it("refuses an unknown constraint or field, and a filter with nothing to update", async () => {
    expect(failure(await resolve(admin, upsert(`[{sku: "a"}]`, `{constraint: item_name_idx, updateFields: [name]}`)))).toEqual(["Invalid input for ItemUniqueConstraint type"]);
    expect(failure(await resolve(admin, upsert(`[{sku: "a"}]`, `{constraint: item_sku_key, updateFields: [sku, nope]}`)))).toEqual(["Invalid input for ItemUpdateField type"]);
    expect(failure(await resolve(admin, upsert(`[{sku: "a"}]`, `{constraint: item_sku_key}`)))).toEqual(["Invalid input for NonNull type"]);
    expect(failure(await resolve(admin, upsert(`[{sku: "a"}]`, `{constraint: item_sku_key, updateFields: [], filter: {qty: {gt: 1}}}`)))).toEqual([
      "The filter of ItemOnConflict applies to the records it updates: updateFields is empty",
    ]);
    expect(await table()).toHaveLength(3);
  });

  it("offers the constraints whose columns the role reads and the fields it may update and read", async () => {
    const enumValues = async (client: pg.Client, name: string) =>
      (await data(client, `{ __type(name: "${name}") { enumValues { name } } }`)).__type?.enumValues.map((v: { name: string }) => v.name) ?? null;
    // Not a constraint: item_name_idx; not updatable: id (serial).
    expect(await enumValues(admin, "ItemUniqueConstraint")).toEqual(["item_pkey", "item_sku_key"]);
    expect(await enumValues(admin, "ItemUpdateField")).toEqual(["sku", "name", "qty", "note"]);
    // The writer updates name and note, but cannot read note.
    expect(await enumValues(writer, "ItemUpdateField")).toEqual(["name"]);
    expect(await enumValues(writer, "ItemUniqueConstraint")).toEqual(["item_pkey", "item_sku_key"]);
    // A deferrable constraint cannot arbitrate; a name GraphQL cannot carry is left out, and with
    // it the whole upsert of a table without another constraint; a table may switch it off.
    expect(await enumValues(admin, "SlotUniqueConstraint")).toEqual(["slot_pkey"]);
    const args = async (field: string) =>
      (await data(admin, `{ __schema { mutationType { fields { name args { name } } } } }`)).__schema.mutationType.fields
        .find((f: { name: string }) => f.name === field)
        .args.map((a: { name: string }) => a.name);
    expect(await args("insertIntoOddCollection")).toEqual(["objects"]);
    expect(await args("insertIntoQuietCollection")).toEqual(["objects"]);
    expect(await args("insertIntoItemCollection")).toEqual(["objects", "onConflict"]);
  });

  it("applies the role's grants and policies to the update", async () => {
    const answer = await data(writer, upsert(`[{sku: "b", name: "blueberry"}]`, `{constraint: item_sku_key, updateFields: [name]}`, "affectedCount records { name }"));
    expect(answer.insertIntoItemCollection).toEqual({ affectedCount: 1, records: [{ name: "blueberry" }] });
    // The update policy refuses rows with qty >= 100.
    const refused = await resolve(writer, upsert(`[{sku: "c", name: "cranberry"}]`, `{constraint: item_sku_key, updateFields: [name]}`));
    expect(failure(refused)[0]).toMatch(/row-level security/);
    expect((await table()).map((r: any) => r.name)).toEqual(["apple", "blueberry", "cherry"]);
  });
});

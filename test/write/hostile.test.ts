// Hostile input in mutations: every user value travels as a bound parameter, so a string written
// to break out of SQL is stored exactly as given and compiles to the very SQL text a benign one
// does.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { compiledStatements, databaseWithExtension, resolve, rows } from "./support";

const HOSTILE = [
  "'); drop table victim; --",
  "$1",
  "$$; delete from victim; $$",
  '" or 1=1 --',
  "\\'; select pg_sleep(10); --",
  "E'\\x41'",
  "'::text || current_user || '",
  "*/ select 1 /*",
  "Zoë 🚀 \u202e ‮ \t\n",
];

const BENIGN = "hello";

describe("hostile strings in mutation inputs", () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    ({ db, client } = await databaseWithExtension(`
      create table victim(id serial primary key, body text, meta jsonb, tags text[]);
      insert into victim(body) values ('keep me');
      create table "we""ird; drop table victim; --"(
        "id" serial primary key,
        "col'); drop table victim; --" text,
        "x""y" int default 7
      );
      comment on table "we""ird; drop table victim; --" is '@graphql({"name": "Weird"})';
      comment on column "we""ird; drop table victim; --"."col'); drop table victim; --" is '@graphql({"name": "label"})';
      comment on column "we""ird; drop table victim; --"."x""y" is '@graphql({"name": "xy"})';
      create function record_body(body text) returns text language sql volatile as $$
        insert into victim(body) values (body) returning body
      $$;
    `));
  });
  afterAll(async () => db.drop());

  const insertLiteral = (s: string) =>
    `mutation { insertIntoVictimCollection(objects: [{body: ${JSON.stringify(s)}, tags: [${JSON.stringify(s)}]}]) { records { id body tags } } }`;
  const insertVariables = `mutation($body: String, $meta: JSON, $tags: [String]) {
    insertIntoVictimCollection(objects: [{body: $body, meta: $meta, tags: $tags}]) { records { id body meta tags } } }`;
  const update = `mutation($old: String!, $new: String!) {
    updateVictimCollection(set: {body: $new}, filter: {body: {eq: $old}}, atMost: 5) { records { body } } }`;
  const remove = `mutation($body: String!) { deleteFromVictimCollection(filter: {body: {eq: $body}}, atMost: 5) { records { body } } }`;
  const callFunction = `mutation($body: String!) { recordBody(body: $body) }`;

  it("stores each string verbatim, through literals and variables alike", async () => {
    for (const s of HOSTILE) {
      const literal = await resolve(client, insertLiteral(s));
      expect(literal.errors).toBeUndefined();
      expect(literal.data.insertIntoVictimCollection.records[0].body).toBe(s);
      expect(literal.data.insertIntoVictimCollection.records[0].tags).toEqual([s]);

      const meta = JSON.stringify({ note: s });
      const viaVariables = await resolve(client, insertVariables, { body: s, meta, tags: [s, null] });
      expect(viaVariables.errors).toBeUndefined();
      const id = viaVariables.data.insertIntoVictimCollection.records[0].id;
      const stored = await client.query("select body, meta, tags from victim where id = $1", [id]);
      expect(stored.rows[0]).toEqual({ body: s, meta: { note: s }, tags: [s, null] });

      expect(await resolve(client, callFunction, { body: s })).toEqual({ data: { recordBody: s } });
    }
    // Nothing else happened to the table.
    expect(await rows(client, "select body from victim where id = 1")).toEqual([{ body: "keep me" }]);
  });

  it("updates and deletes by hostile values without touching other rows", async () => {
    await client.query("delete from victim where id <> 1");
    for (const s of HOSTILE) {
      await client.query("insert into victim(body) values ($1)", [s]);
      const updated = await resolve(client, update, { old: s, new: s + "!" });
      expect(updated).toEqual({ data: { updateVictimCollection: { records: [{ body: s + "!" }] } } });
      const removed = await resolve(client, remove, { body: s + "!" });
      expect(removed).toEqual({ data: { deleteFromVictimCollection: { records: [{ body: s + "!" }] } } });
    }
    expect(await rows(client, "select body from victim where id = 1")).toEqual([{ body: "keep me" }]);
  });

  it("writes to tables and columns whose names are hostile, through the one quoting function", async () => {
    const inserted = await resolve(client, `mutation { insertIntoWeirdCollection(objects: [{label: "a"}, {label: "b", xy: 1}]) { affectedCount records { id label xy } } }`);
    expect(inserted).toEqual({
      data: {
        insertIntoWeirdCollection: {
          affectedCount: 2,
          records: [
            { id: 1, label: "a", xy: 7 },
            { id: 2, label: "b", xy: 1 },
          ],
        },
      },
    });
    const updated = await resolve(client, `mutation { updateWeirdCollection(set: {xy: 2}, filter: {label: {eq: "a"}}) { records { id xy } } }`);
    expect(updated).toEqual({ data: { updateWeirdCollection: { records: [{ id: 1, xy: 2 }] } } });
    const deleted = await resolve(client, `mutation { deleteFromWeirdCollection(filter: {xy: {eq: 1}}) { records { label } } }`);
    expect(deleted).toEqual({ data: { deleteFromWeirdCollection: { records: [{ label: "b" }] } } });
    expect(await rows(client, `select "col'); drop table victim; --" as label, "x""y" as xy from "we""ird; drop table victim; --"`)).toEqual([
      { label: "a", xy: 2 },
    ]);
    expect(await rows(client, "select count(*)::int as n from victim where id = 1")).toEqual([{ n: 1 }]);
  });

  it("compiles to the same SQL text as a benign value, the value only among the parameters", async () => {
    const cases: [string, (s: string) => Record<string, unknown>][] = [
      [insertVariables, (s) => ({ body: s, meta: JSON.stringify({ note: s }), tags: [s] })],
      [update, (s) => ({ old: s, new: s })],
      [remove, (s) => ({ body: s })],
      [callFunction, (s) => ({ body: s })],
    ];
    for (const [query, vars] of cases) {
      const [benign] = await compiledStatements(client, query, vars(BENIGN));
      for (const s of HOSTILE) {
        const [hostile] = await compiledStatements(client, query, vars(s));
        expect(hostile!.sql).toBe(benign!.sql);
        expect(hostile!.params.some((p) => p !== null && p.includes(s))).toBe(true);
      }
    }
    // A literal in the query text compiles the same way.
    const [benign] = await compiledStatements(client, insertLiteral(BENIGN));
    for (const s of HOSTILE) {
      const [hostile] = await compiledStatements(client, insertLiteral(s));
      expect(hostile!.sql).toBe(benign!.sql);
      expect(hostile!.params).toContain(s);
    }
  });
});

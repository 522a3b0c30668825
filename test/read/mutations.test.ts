// Mutations through graphql.resolve: one transaction per request, RLS applied as the caller,
// hostile input stored verbatim without changing the SQL.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { resolveInNode } from "./nodeResolve";

describe("mutations", () => {
  let db: TestDatabase;
  let admin: pg.Client;
  // Roles are cluster-wide: one of its own per database keeps parallel test files apart.
  let writer: string;
  beforeAll(async () => {
    db = await freshDatabase();
    writer = db.name + "_writer";
    admin = await db.connect();
    await admin.query(`
      create extension pg_graphql cascade;
      comment on schema public is '@graphql({"inflect_names": true})';
      create table account(id serial primary key, email text not null unique, owner text not null default current_user);
      alter table account enable row level security;
      create policy own on account using (owner = current_user) with check (owner = current_user);
      create role ${writer} login;
      grant usage on schema public, graphql to ${writer};
      grant select, insert, update, delete on account to ${writer};
      grant usage on sequence account_id_seq to ${writer};
      insert into account(email, owner) values ('someone@x.com', 'postgres');
    `);
  });
  afterAll(async () => {
    await db.drop();
    const cleanup = await freshDatabase();
    await cleanup.query(`drop role if exists ${writer}`).catch(() => {});
    await cleanup.drop();
  });

  const resolve = async (client: pg.Client, query: string, variables: unknown = {}) =>
    (await client.query("select graphql.resolve($1, $2::jsonb) as r", [query, JSON.stringify(variables)])).rows[0].r;
  const count = async () => (await admin.query("select count(*)::int as n from account")).rows[0].n;

  it("undoes the first mutation when the second fails", async () => {
    const before = await count();
    const answer = await resolve(
      admin,
      `mutation {
        a: insertIntoAccountCollection(objects: [{email: "new@x.com"}]) { affectedCount }
        b: insertIntoAccountCollection(objects: [{email: "someone@x.com"}]) { affectedCount }
      }`,
    );
    expect(answer).toEqual({ data: null, errors: [{ message: 'duplicate key value violates unique constraint "account_email_key"' }] });
    expect(await count()).toBe(before);
  });

  it("refuses an update touching more rows than atMost, changing nothing", async () => {
    await admin.query("insert into account(email, owner) values ('two@x.com', 'postgres')");
    const answer = await resolve(admin, `mutation { updateAccountCollection(set: {owner: "x"}, atMost: 1) { affectedCount } }`);
    expect(answer).toEqual({ data: null, errors: [{ message: "update impacts too many records" }] });
    expect((await admin.query("select count(*)::int as n from account where owner = 'x'")).rows[0].n).toBe(0);
  });

  it("applies row level security as the calling role", async () => {
    const client = await db.connect({ user: writer });
    try {
      const before = (await admin.query("select email from account order by id")).rows;
      const blocked = await resolve(client, `mutation { insertIntoAccountCollection(objects: [{email: "evil@x.com", owner: "postgres"}]) { affectedCount } }`);
      expect(blocked).toEqual({ data: null, errors: [{ message: 'new row violates row-level security policy for table "account"' }] });
      const invisible = await resolve(client, `mutation { deleteFromAccountCollection(filter: {email: {eq: "someone@x.com"}}) { affectedCount } }`);
      expect(invisible).toEqual({ data: { deleteFromAccountCollection: { affectedCount: 0 } } });
      expect((await admin.query("select email from account order by id")).rows).toEqual(before);
    } finally {
      await client.end();
    }
  });

  it("stores hostile strings verbatim, with the same SQL as benign ones", async () => {
    const q = `mutation($e: String!) { insertIntoAccountCollection(objects: [{email: $e}]) { records { email } } }`;
    const hostile = `x'); delete from account; --"$$`;
    const client = await db.connect();
    try {
      await client.query("begin");
      const benign = await resolveInNode(client, q, { e: "plain@x.com" });
      const evil = await resolveInNode(client, q, { e: hostile });
      await client.query("rollback");
      expect(evil.statements[0]!.sql).toBe(benign.statements[0]!.sql);
      expect(evil.response).toEqual({ data: { insertIntoAccountCollection: { records: [{ email: hostile }] } } });
    } finally {
      await client.end();
    }
    const stored = await resolve(admin, q, { e: hostile });
    expect(stored.data.insertIntoAccountCollection.records[0].email).toBe(hostile);
    expect((await admin.query("select count(*)::int as n from account where email = $1", [hostile])).rows[0].n).toBe(1);
  });
});

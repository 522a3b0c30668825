// The schema key (role, search path, schema version) that picks a backend's cached API: the SQL
// functions pass the role and search path to the resolver, which then reads only the version, and
// a caller of the plv8 function that passes another role gets no API of the wrong role.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

const TABLES = `{ __schema { queryType { fields { name } } } }`;

describe("the schema key", () => {
  let db: TestDatabase;
  let insider: string;
  let outsider: string;
  beforeAll(async () => {
    db = await freshDatabase();
    insider = db.name + "_insider";
    outsider = db.name + "_outsider";
    await db.query(`
      create extension pg_graphql cascade;
      create extension pg_stat_statements;
      comment on schema public is '@graphql({"introspection": true, "inflect_names": true})';
      create table open_note(id int primary key, body text);
      create table secret(id int primary key, body text);
      insert into secret values (1, 'only for the insider');
      create role ${insider};
      create role ${outsider};
      grant usage on schema public, graphql to ${insider}, ${outsider};
      grant select on open_note to ${insider}, ${outsider};
      grant select on secret to ${insider};
    `);
  });
  afterAll(async () => {
    await db.drop();
    const cleanup = await freshDatabase();
    await cleanup.query(`drop role if exists ${insider}, ${outsider}`).catch(() => {});
    await cleanup.drop();
  });

  const fields = async (client: pg.Client, sql = "select graphql.resolve($1) as r") => {
    const r = (await client.query(sql, [TABLES])).rows[0].r;
    const answer = typeof r === "string" ? JSON.parse(r) : r;
    return (answer.data.__schema.queryType.fields as { name: string }[]).map((f) => f.name);
  };
  /** Calls of the resolver's own statements matching `like` in this database since the last reset. */
  const statements = async (like: string) =>
    (
      await db.query(
        "select coalesce(sum(calls), 0)::int as n from pg_stat_statements where not toplevel and query like $1 " +
          "and dbid = (select oid from pg_database where datname = current_database())",
        [like],
      )
    ).rows[0].n;
  const keyStatements = () => statements("%current_user::text as role%");
  const versionStatements = () => statements("select last_value::text as version%");
  // As the superuser: resetting and reading other roles' statements take its privileges.
  const reset = () => db.query("select pg_stat_statements_reset(0, (select oid from pg_database where datname = current_database()), 0)");

  it("is read in part by the calling statement: warm requests read only the version", async () => {
    const client = await db.connect();
    await client.query("set pg_stat_statements.track = 'all'");
    await client.query(`set role ${insider}`);
    expect(await fields(client)).toContain("secretCollection");
    await reset();
    for (let i = 0; i < 5; i++) expect(await fields(client)).toContain("secretCollection");
    for (let i = 0; i < 5; i++) expect(await fields(client, "select graphql._resolve_text($1) as r")).toContain("secretCollection");
    expect(await keyStatements()).toBe(0);
    expect(await versionStatements()).toBe(10);
  });

  it("still changes with the role, the search path and DDL", async () => {
    const client = await db.connect();
    await client.query(`set role ${insider}`);
    expect(await fields(client)).toContain("secretCollection");
    await client.query(`set role ${outsider}`);
    const seen = await fields(client);
    expect(seen).toContain("openNoteCollection");
    expect(seen).not.toContain("secretCollection");
    await db.query(`create table later(id int primary key); grant select on later to ${outsider}`);
    expect(await fields(client)).toContain("laterCollection");
    await db.query(`create schema elsewhere; create table elsewhere.remote(id int primary key);
      comment on schema elsewhere is '@graphql({"introspection": true, "inflect_names": true})';
      grant usage on schema elsewhere to ${outsider}; grant select on elsewhere.remote to ${outsider}`);
    await client.query("set search_path = elsewhere");
    const moved = await fields(client);
    expect(moved).toContain("remoteCollection");
    expect(moved).not.toContain("laterCollection");
    await client.query("reset search_path");
    expect(await fields(client)).toContain("laterCollection");
  });

  it("read by the resolver itself when the plv8 function is called without it", async () => {
    const client = await db.connect();
    await client.query("set pg_stat_statements.track = 'all'");
    await client.query(`set role ${insider}`);
    const direct = "select graphql._internal_resolve($1, '{}', null, null) as r";
    expect(await fields(client, direct)).toContain("secretCollection");
    await reset();
    expect(await fields(client, direct)).toContain("secretCollection");
    expect(await keyStatements()).toBe(1);
  });

  it("claimed for another role gets no API of the wrong role", async () => {
    const client = await db.connect();
    await client.query(`set role ${outsider}`);
    const path = (await client.query("select current_setting('search_path') as path")).rows[0].path;
    // The insider, in the same session, claims to be the outsider: nothing is built under that.
    await client.query(`set role ${insider}`);
    const claimedByInsider = "select graphql._internal_resolve($1, '{}', null, null, $2, $3) as r";
    const r = (await client.query(claimedByInsider, [TABLES, outsider, path])).rows[0].r;
    expect(JSON.parse(r).data.__schema.queryType.fields.map((f: { name: string }) => f.name)).toContain("secretCollection");
    await client.query(`set role ${outsider}`);
    expect(await fields(client)).not.toContain("secretCollection");
    // The other way round: the outsider claims to be the insider. The resolver lives in a
    // JavaScript context of the role running it, where no schema of the insider's was built.
    const read = `{ secretCollection { edges { node { body } } } }`;
    const answer = JSON.parse((await client.query(claimedByInsider, [read, insider, path])).rows[0].r);
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors[0].message).toBe('Unknown field "secretCollection" on type Query');
    expect(JSON.stringify(answer)).not.toContain("only for the insider");
  });
});

// The extension's SQL objects and its end-to-end path: SQL -> PLV8 -> bundle -> graphql-js.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

describe("create extension pg_graphql", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create extension pg_graphql cascade");
  });
  afterAll(async () => db.drop());

  it("answers { __typename } end to end", async () => {
    const { rows } = await db.query("select graphql.resolve('{ __typename }') as r");
    expect(rows[0].r).toEqual({ data: { __typename: "Query" } });
  });

  it("brings plv8 with it and lists its own version as installed and default", async () => {
    const { rows } = await db.query(
      "select name, default_version, installed_version from pg_available_extensions where name in ('plv8', 'pg_graphql') order by name",
    );
    expect(rows.map((r) => r.name)).toEqual(["pg_graphql", "plv8"]);
    const ours = rows[0];
    const { version } = (await import("../../package.json", { with: { type: "json" } })).default;
    expect(ours.default_version).toBe(version);
    expect(ours.installed_version).toBe(version);
  });

  it("has pg_graphql's SQL objects and signatures", async () => {
    const { rows } = await db.query(`
      select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as sig
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'graphql' and p.proname in ('resolve', 'get_schema_version', 'comment_directive', 'exception', 'increment_schema_version')
      order by 1`);
    expect(rows.map((r) => r.sig)).toEqual([
      "comment_directive(comment_ text)",
      "exception(message text)",
      "get_schema_version()",
      "increment_schema_version()",
      'resolve(query text, variables jsonb, "operationName" text, extensions jsonb)',
    ]);
    const triggers = await db.query("select evtname, evtevent from pg_event_trigger where evtname like 'graphql%' order by 1");
    expect(triggers.rows).toEqual([
      { evtname: "graphql_watch_ddl", evtevent: "ddl_command_end" },
      { evtname: "graphql_watch_drop", evtevent: "sql_drop" },
    ]);
    const resolve = await db.query(
      "select provolatile from pg_proc where oid = 'graphql.resolve(text, jsonb, text, jsonb)'::regprocedure",
    );
    expect(resolve.rows[0].provolatile).toBe("v");
  });

  it("bumps the schema version on DDL, including drops and comments", async () => {
    const version = async () => (await db.query("select graphql.get_schema_version() as v")).rows[0].v as number;
    const v0 = await version();
    await db.query("create table bump_me(id int primary key)");
    const v1 = await version();
    expect(v1).toBeGreaterThan(v0);
    await db.query("comment on table bump_me is 'x'");
    const v2 = await version();
    expect(v2).toBeGreaterThan(v1);
    await db.query("drop table bump_me");
    expect(await version()).toBeGreaterThan(v2);
  });

  it("reads comment directives and raises graphql.exception with SQLSTATE 22000", async () => {
    const { rows } = await db.query(
      `select graphql.comment_directive('@graphql({"name": "a (b) c"})') as a, graphql.comment_directive('no directive') as b`,
    );
    expect(rows[0]).toEqual({ a: { name: "a (b) c" }, b: {} });
    await expect(db.query("select graphql.exception('boom')")).rejects.toMatchObject({ code: "22000", message: "boom" });
  });

  it("answers errors as a GraphQL error response", async () => {
    const { rows } = await db.query("select graphql.resolve('{ __typename') as r");
    expect(rows[0].r).toEqual({ errors: [{ message: "Syntax Error: Expected Name, found <EOF>." }] });
  });

  it("is callable by a role that is not a superuser", async () => {
    await db.query("create role graphql_test_caller");
    const client = await db.connect();
    try {
      await client.query("set role graphql_test_caller");
      const { rows } = await client.query("select graphql.resolve('{ __typename }') as r");
      expect(rows[0].r).toEqual({ data: { __typename: "Query" } });
    } finally {
      await client.end();
    }
  });
});

// database/query and query/read-only over HTTP against real project databases: SQL runs as the
// project's owner role (RESET ROLE and SET ROLE NONE do not escape it), cannot reach another
// project's database, server files or programs; read_only refuses writes even after COMMIT or
// settings changes; the statement timeout holds when the SQL turns the server's off; errors
// are 400 with PostgreSQL's message and change nothing. database/context lists the schemas.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { adminQuery, api, clusterUrl, createProject, startPlatform, tracesOf, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;
let other: string;

const query = (project: string, body: unknown, path = "database/query") => api(platform.baseUrl, token, "POST", `/v1/projects/${project}/${path}`, body);
const adminRows = (database: string, sql: string) => adminQuery(clusterUrl(clusterInfo(), database), sql);

beforeAll(async () => {
  platform = await startPlatform({ statementTimeoutMs: 5000 });
  token = await platform.token("sql@example.com");
  ref = (await createProject(platform.baseUrl, token, "sql one")).ref;
  other = (await createProject(platform.baseUrl, token, "sql two")).ref;
  const made = await query(ref, { query: "create table public.notes (id int primary key, body text); insert into public.notes values (1, 'one'); create sequence public.counter" });
  expect(made.status).toBe(201);
});
afterAll(async () => {
  for (const r of [ref, other]) await api(platform.baseUrl, token, "DELETE", `/v1/projects/${r}`);
  await platform.close();
});

describe("database/query", () => {
  it("answers the last statement's rows as a JSON array, as the owner role", async () => {
    const r = await query(ref, { query: "select 1 as a; select id, body, now() > '2020-01-01'::timestamptz as recent from notes" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual([{ id: 1, body: "one", recent: true }]);
    const who = await query(ref, { query: "reset role; reset all; select current_user as u" });
    expect(who.body).toEqual([{ u: `${ref}_owner` }]);
    const parameters = await query(ref, { query: "select $1::int + 1 as n", parameters: [41] });
    expect(parameters.body).toEqual([{ n: 42 }]);
    const owner = await adminRows(ref, "select tableowner from pg_tables where tablename = 'notes'");
    expect(owner).toEqual([{ tableowner: `${ref}_owner` }]);
  });

  it("converts values as the hosted endpoint (postgres-meta) does, on both logins", async () => {
    const text = `set timezone = 'UTC';
      select 17401::int8 as small, 9007199254740993::int8 as big, -9007199254740991::int8 as safe_edge,
        array[1, 2]::int8[] as int8s, 1.50::numeric as num, 7::int4 as int4,
        '2024-01-02'::date as d, '2024-01-02 03:04:05'::timestamp as ts, '2024-01-02 03:04:05+00'::timestamptz as tstz,
        array['2024-01-02', '2024-01-03']::date[] as ds, array['2024-01-02 03:04:05+00']::timestamptz[] as tstzs,
        array['2024-01-02 03:04:05']::timestamp[] as tss, '1 day 02:00'::interval as iv,
        point(1, 2) as p, '{"a": [1]}'::jsonb as j`;
    const expected = {
      small: 17401,
      big: "9007199254740993",
      safe_edge: -9007199254740991,
      int8s: ["1", "2"],
      num: "1.50",
      int4: 7,
      d: "2024-01-02",
      ts: "2024-01-02 03:04:05",
      tstz: "2024-01-02 03:04:05+00",
      ds: ["2024-01-02", "2024-01-03"],
      tstzs: ["2024-01-02 03:04:05+00"],
      tss: ["2024-01-02 03:04:05"],
      iv: "1 day 02:00:00",
      p: "(1,2)",
      j: { a: [1] },
    };
    for (const body of [{ query: text }, { query: text, read_only: true }]) {
      const r = await query(ref, body);
      expect(r.status, r.body.message).toBe(201);
      expect(r.body).toEqual([expected]);
    }
    const parameters = await query(ref, { query: "select $1::int8 as n, pg_table_size('notes')::int8 as bytes", parameters: ["42"] });
    expect(parameters.body).toEqual([{ n: 42, bytes: expect.any(Number) }]);
  });

  it("answers the last result that has rows when later statements have none", async () => {
    const r = await query(ref, { query: "select 7 as a; select 1 as b where false" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual([{ a: 7 }]);
    const none = await query(ref, { query: "select 1 as b where false; set timezone = 'UTC'" });
    expect(none.body).toEqual([]);
  });

  it("leaves the owner role only for a role without privileges", async () => {
    const r = await query(ref, { query: "set role none; select * from notes" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("permission denied for table notes");
  });

  it("cannot reach another project's database, server files or programs", async () => {
    const cases = [
      `select * from dblink('dbname=${other}', 'select 1') as t(x int)`,
      "select pg_read_file('/etc/passwd')",
      "copy (select 1) to program 'id'",
      "copy notes from '/etc/hostname'",
      "create extension dblink",
      `set role "${other}_owner"`,
      "alter role current_user superuser",
    ];
    for (const text of cases) {
      const r = await query(ref, { query: text });
      expect(r.status, text).toBe(400);
      expect(r.body.message, text).toMatch(/ERROR: {2}[0-9A-Z]{5}: /);
    }
    const direct = await query(ref, { query: `select count(*)::int as n from pg_database where datname = '${other}' and has_database_privilege(datname, 'connect')` });
    expect(direct.body).toEqual([{ n: 0 }]);
  });

  it("answers SQL errors with 400 and PostgreSQL's message, and changes nothing", async () => {
    const r = await query(ref, { query: "insert into notes values (2, 'two'); select * from missing_table" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('42P01: relation "missing_table" does not exist');
    const syntax = await query(ref, { query: "selec 1" });
    expect(syntax.status).toBe(400);
    expect(syntax.body.message).toContain('syntax error at or near "selec"');
    const placed = await query(ref, { query: "select 1;\nselect nope\n  from notes" });
    expect(placed.body.message).toBe(
      'Failed to run sql query: ERROR:  42703: column "nope" does not exist\nLINE 2: select nope\n               ^',
    );
    expect(await adminRows(ref, "select count(*)::int as n from notes")).toEqual([{ n: 1 }]);
  });

  it("refuses bad bodies with 400", async () => {
    for (const body of [{}, { query: "" }, { query: 1 }, { query: "select 1", read_only: "yes" }, "not json"]) {
      const r = await query(ref, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(typeof r.body.message).toBe("string");
    }
  });

  it("cancels a query past the statement timeout, even when the SQL turns the server's off", async () => {
    const r = await query(ref, { query: "set statement_timeout = 0; select pg_sleep(30)" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("statement timeout (5000 ms)");
    expect((await query(ref, { query: "select 1 as ok" })).body).toEqual([{ ok: 1 }]);
  });

  it("refuses other users and unknown projects with 403", async () => {
    const stranger = await platform.token("stranger@example.com");
    const r = await api(platform.baseUrl, stranger, "POST", `/v1/projects/${ref}/database/query`, { query: "drop table notes" });
    expect(r.status).toBe(403);
    expect(await adminRows(ref, "select count(*)::int as n from notes")).toEqual([{ n: 1 }]);
  });
});

describe("read-only queries", () => {
  const escapes = [
    "insert into notes values (3, 'three')",
    "commit; insert into notes values (3, 'three')",
    "set default_transaction_read_only = off; insert into notes values (3, 'three')",
    "reset all; insert into notes values (3, 'three')",
    "commit; begin read write; insert into notes values (3, 'three'); commit",
    "set session characteristics as transaction read write; update notes set body = 'changed'",
    "commit; set transaction read write; delete from notes",
    "create temp table scratch (x int)",
    "create table public.sneaky (x int)",
    "set role none; drop table notes",
    "select nextval('public.counter')",
    "commit; set default_transaction_read_only = off; select setval('public.counter', 5)",
  ];

  it("reads every table, RLS included", async () => {
    await query(ref, { query: "alter table notes enable row level security" });
    const r = await query(ref, { query: "select id, body from notes" }, "database/query/read-only");
    expect(r.status).toBe(201);
    expect(r.body).toEqual([{ id: 1, body: "one" }]);
    const flag = await query(ref, { query: "select id from notes", read_only: true });
    expect(flag.body).toEqual([{ id: 1 }]);
    await query(ref, { query: "alter table notes disable row level security" });
  });

  it("refuses writes through every way out of a read-only transaction", async () => {
    for (const text of escapes) {
      for (const r of [await query(ref, { query: text }, "database/query/read-only"), await query(ref, { query: text, read_only: true })]) {
        expect(r.status, text).toBe(400);
        expect(r.body.message, text).toMatch(/read-only transaction|permission denied|must be owner/);
      }
    }
    expect(await adminRows(ref, "select id, body from notes")).toEqual([{ id: 1, body: "one" }]);
    expect(await adminRows(ref, "select count(*)::int as n from pg_tables where tablename = 'sneaky'")).toEqual([{ n: 0 }]);
  });
});

describe("database/context", () => {
  it("lists the project's database and its schemas", async () => {
    const r = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/database/context`);
    expect(r.status).toBe(200);
    expect(r.body.databases).toHaveLength(1);
    expect(r.body.databases[0].name).toBe(ref);
    const names = r.body.databases[0].schemas.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining(["public", "graphql", "auth"]));
  });
});

describe("the platform's logins", () => {
  it("go with the project when it is deleted", async () => {
    const third = (await createProject(platform.baseUrl, token, "sql three")).ref;
    expect((await query(third, { query: "select 1 as one" }, "database/query/read-only")).body).toEqual([{ one: 1 }]);
    expect((await tracesOf(clusterUrl(clusterInfo()), third)).roles.sort()).toEqual([`${third}_authenticator`, `${third}_login`, `${third}_owner`, `${third}_readonly`]);
    expect((await api(platform.baseUrl, token, "DELETE", `/v1/projects/${third}`)).status).toBe(200);
    expect(await tracesOf(clusterUrl(clusterInfo()), third)).toEqual({ databases: [], roles: [] });
  });
});

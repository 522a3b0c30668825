// Integration tests of the reflection query + parseCatalog against a real PostgreSQL 15.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../test/harness/db";
import { parseCatalog } from "./parseCatalog";
import { REFLECTION_QUERY } from "./reflectionQuery";
import { buildSchema } from "../schema/buildSchema";
import type { Catalog } from "./model";

async function reflect(db: TestDatabase, role?: string): Promise<Catalog> {
  const client = await db.connect();
  try {
    if (role) await client.query(`set role ${role}`);
    const { rows } = await client.query(REFLECTION_QUERY);
    return parseCatalog(rows[0].catalog);
  } finally {
    await client.end();
  }
}

describe("reflection query", () => {
  let db: TestDatabase;
  let reader: string;
  beforeAll(async () => {
    db = await freshDatabase();
    reader = `reader_${db.name}`;
    await db.query(`
      comment on schema public is '@graphql({"inflect_names": true, "max_rows": 5})';
      create type mood as enum ('happy', 'sad');
      comment on type mood is '@graphql({"name": "Feeling", "mappings": {"sad": "SAD"}})';
      create table account(
        id serial primary key,
        email text not null,
        secret varchar(12),
        feeling mood,
        tags text[]
      );
      comment on column account.email is '@graphql({"name": "mail", "description": "where to write"})';
      create table blog(
        id int generated always as identity primary key,
        owner_id int not null references account(id),
        title text
      );
      create unique index on blog(title) where title is not null;
      create view blog_view as select id, title from blog;
      comment on view blog_view is '@graphql({"primary_key_columns": ["id"], "foreign_keys": [{"local_columns": ["id"], "foreign_schema": "public", "foreign_table": "blog", "foreign_columns": ["id"]}]})';
      create function account_upper(rec account) returns text stable language sql as $$ select upper(rec.email) $$;
      create role ${reader};
      grant select (id, email) on account to ${reader};
    `);
  });
  afterAll(async () => {
    await db.query(`drop owned by ${reader}; drop role ${reader}`);
    await db.drop();
  });

  it("reads tables, columns, keys, enums, directives and functions", async () => {
    const catalog = await reflect(db);
    expect(catalog.loadError).toBeNull();
    expect(catalog.schemas.map((s) => s.name)).toEqual(["public"]);
    expect(catalog.schemas[0]!.directives).toEqual({ inflectNames: true, maxRows: 5, introspection: false });

    const account = catalog.tables.find((t) => t.name === "account")!;
    expect(account.kind).toBe("table");
    expect(account.primaryKey).toEqual(["id"]);
    expect(account.columns.map((c) => c.name)).toEqual(["id", "email", "secret", "feeling", "tags"]);
    expect(account.columns[1]!.directives).toEqual({ name: "mail", description: "where to write" });
    expect(account.columns[2]!.maxLength).toBe(12);
    expect(account.columns[1]!.maxLength).toBeNull();

    const blog = catalog.tables.find((t) => t.name === "blog")!;
    expect(blog.foreignKeys).toHaveLength(1);
    expect(blog.foreignKeys[0]!.localColumns).toEqual(["owner_id"]);
    expect(blog.foreignKeys[0]!.foreignTableOid).toBe(account.oid);
    expect(blog.columns[0]!.isSerial).toBe(true);
    expect(account.columns[0]!.isSerial).toBe(true);
    expect(account.columns[1]!.isSerial).toBe(false);
    expect(blog.uniqueIndexes.find((i) => i.columns[0] === "title")!.isPartial).toBe(true);

    const view = catalog.tables.find((t) => t.name === "blog_view")!;
    expect(view.kind).toBe("view");
    expect(view.primaryKey).toEqual(["id"]);
    expect(view.foreignKeys[0]!.foreignTableOid).toBe(blog.oid);

    const mood = catalog.types.find((t) => t.name === "mood")!;
    expect(mood.kind).toBe("enum");
    if (mood.kind !== "enum") throw new Error("unreachable");
    expect(mood.values).toEqual(["happy", "sad"]);
    expect(mood.directives).toEqual({ name: "Feeling", mappings: { sad: "SAD" } });
    expect(mood.exposed).toBe(true);

    const tagsType = catalog.types.find((t) => t.oid === account.columns[4]!.typeOid)!;
    expect(tagsType.kind).toBe("array");

    const fn = catalog.functions.find((f) => f.name === "account_upper")!;
    const accountRowType = (await db.query("select 'account'::regtype::oid::int as oid")).rows[0].oid;
    expect(fn.args).toEqual([{ name: "rec", typeOid: accountRowType, hasDefault: false, defaultSql: null }]);
    expect(fn.volatility).toBe("stable");
    expect(fn.canExecute).toBe(true);
  });

  it("reports column privileges of the current role", async () => {
    const catalog = await reflect(db, reader);
    const account = catalog.tables.find((t) => t.name === "account")!;
    expect(account.columns.filter((c) => c.privileges.select).map((c) => c.name)).toEqual(["id", "email"]);
    expect(account.privileges.select).toBe(false);
    const blog = catalog.tables.find((t) => t.name === "blog")!;
    expect(blog.columns.some((c) => c.privileges.select)).toBe(false);
  });

  it("leaves out schemas of the search path the role has no USAGE on", async () => {
    const client = await db.connect();
    try {
      await client.query("begin");
      await client.query("create schema hidden_s; create table hidden_s.t(id int primary key)");
      await client.query(`set local search_path = public, hidden_s; set local role ${reader}`);
      const { rows } = await client.query(REFLECTION_QUERY);
      const catalog = parseCatalog(rows[0].catalog);
      expect(catalog.schemas.map((s) => s.name)).toEqual(["public"]);
      expect(catalog.tables.some((t) => t.schema === "hidden_s")).toBe(false);
      await client.query("rollback");
    } finally {
      await client.end();
    }
  });

  it("turns a malformed directive into a load error", async () => {
    const client = await db.connect();
    try {
      await client.query("begin");
      await client.query(`comment on table account is '@graphql({"name": })'`);
      const { rows } = await client.query(REFLECTION_QUERY);
      const catalog = parseCatalog(rows[0].catalog);
      expect(catalog.loadError).toMatch(/^Error while loading schema, check comment directives\./);
      await client.query("rollback");
    } finally {
      await client.end();
    }
  });
});

describe("reflection on a large catalog", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    const ddl: string[] = [];
    for (let i = 0; i < 500; i++) {
      const ref = i > 0 ? `, parent_id int references t${i - 1}(id)` : "";
      ddl.push(`create table t${i}(id serial primary key, name text not null, created_at timestamptz, n numeric${ref});`);
    }
    await db.query(ddl.join("\n"));
  });
  afterAll(async () => {
    await db.drop();
  });

  it("reflects 500 tables with one query", async () => {
    const client = await db.connect();
    try {
      await client.query(REFLECTION_QUERY); // warm the backend's catalog caches
      const started = performance.now();
      const { rows } = await client.query(REFLECTION_QUERY);
      const queryMs = performance.now() - started;
      const catalog = parseCatalog(rows[0].catalog);
      const totalMs = performance.now() - started;
      const built = performance.now();
      buildSchema(catalog);
      const buildMs = performance.now() - built;
      console.log(
        `reflection of 500 tables: query ${queryMs.toFixed(1)} ms, with parsing ${totalMs.toFixed(1)} ms; buildSchema ${buildMs.toFixed(1)} ms`,
      );
      expect(catalog.tables).toHaveLength(500);
      expect(catalog.tables.filter((t) => t.foreignKeys.length === 1)).toHaveLength(499);
    } finally {
      await client.end();
    }
  });

  // Past jit_above_cost the server would JIT-compile the query, which costs far more than
  // running it; the estimate grows with the catalog, so a large one is where it would tip over.
  it("is estimated below the cost at which the server would JIT-compile it", async () => {
    const { rows } = await db.query(`explain (format json) ${REFLECTION_QUERY}`);
    const plan = (rows[0]["QUERY PLAN"] as { Plan: { "Total Cost": number } }[])[0]!.Plan;
    const { rows: setting } = await db.query("select current_setting('jit_above_cost')::float8 as cost");
    expect(plan["Total Cost"]).toBeLessThan(Number(setting[0].cost));
  });
});

// Integration tests: databases built here → reflection → buildSchema → introspection answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GraphQLField } from "graphql";
import type pg from "pg";
import { freshDatabase, type TestDatabase } from "../../test/harness/db";
import { resolutionOf } from "./resolution";
import { introspect, reflectSchema } from "../../test/harness/reflectSchema";

let db: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  db = await freshDatabase();
  client = await db.connect();
});
afterAll(async () => {
  await client.end();
  await db.drop();
});

/** Runs `setup` in a transaction that is rolled back afterwards, like the conformance cases. */
async function withSchema<T>(setup: string, body: () => Promise<T>): Promise<T> {
  await client.query("begin");
  try {
    await client.query(setup);
    return await body();
  } finally {
    await client.query("rollback");
  }
}

const ON = `comment on schema public is e'@graphql({"inflect_names": true, "introspection": true})';`;

/** A field as the API offers it: its type and its arguments with their types. */
function signature(field: GraphQLField<unknown, unknown> | undefined): { type: string; args: string[] } | undefined {
  return field && { type: String(field.type), args: field.args.map((a) => `${a.name}: ${String(a.type)}`) };
}

/** The arguments of every collection field, for a table whose types are named `base`. */
function collectionArgs(base: string): string[] {
  return ["first: Int", "last: Int", "before: Cursor", "after: Cursor", "offset: Int", `filter: ${base}Filter`, `orderBy: [${base}OrderBy!]`];
}

function fieldNames(result: Record<string, unknown>): string[] {
  const type = result["__type"] as { fields: { name: string }[] } | null;
  return type?.fields.map((f) => f.name) ?? [];
}

describe("buildSchema", () => {
  it("names types and fields with inflection and lists types in name order", async () => {
    await withSchema(
      `${ON}
       create table blog_post(id serial primary key, title text not null, created_at timestamp);`,
      async () => {
        const api = await reflectSchema(client);
        expect(fieldNames(introspect(api, `{ __type(name: "BlogPost") { fields { name } } }`))).toEqual([
          "nodeId",
          "id",
          "title",
          "createdAt",
        ]);
        const types = (introspect(api, `{ __schema { types { name } } }`)["__schema"] as { types: { name: string }[] })
          .types.map((t) => t.name);
        expect(types).toEqual([...types].sort());
        expect(types).toContain("BlogPostConnection");
        expect(types).toContain("BlogPostInsertInput");
        expect(types).not.toContain("BlogPostAggregate");
      },
    );
  });

  it("keeps names as they are without inflection", async () => {
    await withSchema(
      `comment on schema public is e'@graphql({"introspection": true})';
       create table blog_post(id int primary key, created_at timestamp);`,
      async () => {
        const api = await reflectSchema(client);
        expect(fieldNames(introspect(api, `{ __type(name: "blog_post") { fields { name } } }`))).toEqual([
          "nodeId",
          "id",
          "created_at",
        ]);
        const collection = api.graphql.getQueryType()!.getFields()["blog_postCollection"];
        expect(signature(collection)).toEqual({ type: "blog_postConnection!", args: collectionArgs("blog_post") });
        expect(resolutionOf(collection!)).toMatchObject({ kind: "connection", table: { name: "blog_post" }, relation: null });
      },
    );
  });

  it("sorts Query fields and offers ByPk only for supported key types", async () => {
    await withSchema(
      `${ON}
       create table no_pk(value int);
       create table float_pk(id float primary key);
       create table small_pk(id smallint primary key);`,
      async () => {
        const api = await reflectSchema(client);
        expect(fieldNames(introspect(api, `{ __type(name: "Query") { fields { name } } }`))).toEqual([
          "floatPkCollection",
          "node",
          "smallPkByPk",
          "smallPkCollection",
        ]);
      },
    );
  });

  it("derives relationship names, one-to-one and nullability (RLS makes to-one nullable)", async () => {
    await withSchema(
      `${ON}
       create table account(id int primary key);
       create table address(id int primary key, account_id int not null unique references account(id));
       create table blog(id int primary key, owner_id int not null references account(id));
       create table secret(id int primary key);
       alter table secret enable row level security;
       create table note(id int primary key, secret_id int not null references secret(id));`,
      async () => {
        const api = await reflectSchema(client);
        const account = api.graphql.getType("Account") as import("graphql").GraphQLObjectType;
        expect(Object.keys(account.getFields())).toEqual(["nodeId", "id", "address", "blogCollection"]);
        expect(String(account.getFields()["address"]!.type)).toBe("Address");
        expect(String(account.getFields()["blogCollection"]!.type)).toBe("BlogConnection");
        const blog = api.graphql.getType("Blog") as import("graphql").GraphQLObjectType;
        expect(String(blog.getFields()["owner"]!.type)).toBe("Account!");
        expect(resolutionOf(blog.getFields()["owner"]!)?.kind).toBe("relation");
        const note = api.graphql.getType("Note") as import("graphql").GraphQLObjectType;
        expect(String(note.getFields()["secret"]!.type)).toBe("Secret");
      },
    );
  });

  it("drops composite columns and keeps JSON out of filters and ordering", async () => {
    await withSchema(
      `${ON}
       create type complex as (r int, i int);
       create table something(id serial primary key, name text not null, tags text[], comps complex, js json);`,
      async () => {
        const api = await reflectSchema(client);
        const names = (type: string, key: "fields" | "inputFields") => {
          const t = introspect(api, `{ __type(name: "${type}") { ${key} { name } } }`)["__type"] as Record<
            string,
            { name: string }[]
          >;
          return t[key]!.map((f) => f.name);
        };
        expect(names("Something", "fields")).toEqual(["nodeId", "id", "name", "tags", "js"]);
        expect(names("SomethingFilter", "inputFields")).toEqual(["id", "name", "tags", "nodeId", "and", "or", "not"]);
        expect(names("SomethingOrderBy", "inputFields")).toEqual(["id", "name"]);
        expect(names("SomethingInsertInput", "inputFields")).toEqual(["name", "tags", "js"]);
      },
    );
  });

  it("hides columns without SELECT and tables without any selectable column", async () => {
    const role = `anon_${db.name}`;
    await withSchema(
      `${ON}
       create role ${role};
       create table account(id int primary key, email text, password text);
       create table hidden(id int primary key);
       grant select (id, email) on account to ${role};
       set local role ${role};`,
      async () => {
        const api = await reflectSchema(client);
        expect(fieldNames(introspect(api, `{ __type(name: "Account") { fields { name } } }`))).toEqual([
          "nodeId",
          "id",
          "email",
        ]);
        expect(api.graphql.getType("Hidden")).toBeUndefined();
        expect(api.graphql.getMutationType()).toBeNull();
      },
    );
  });

  it("exposes functions: stable on Query, volatile on Mutation, computed fields on the row type", async () => {
    await withSchema(
      `${ON}
       create table account(id int primary key, first text, last text);
       create function _full_name(rec account) returns text stable language sql as $$ select rec.first || rec.last $$;
       create function add_ints(a int, b int default 2) returns int immutable language sql as $$ select a + b $$;
       create function bump(amount int) returns int volatile language sql as $$ select amount $$;
       create function nameless(int) returns int stable language sql as $$ select $1 $$;
       create type color as enum ('red');
       create function paint(c color) returns int stable language sql as $$ select 1 $$;
       create function arr_default(arr int[] = '{1}') returns int[] stable language sql as $$ select arr $$;
       comment on function add_ints is e'@graphql({"description": "adds"})';`,
      async () => {
        const api = await reflectSchema(client);
        const query = api.graphql.getQueryType()!.getFields();
        expect(query["addInts"]?.description).toBe("adds");
        expect(query["nameless"]).toBeUndefined();
        expect(query["paint"]).toBeUndefined();
        expect(String(query["arrDefault"]!.args[0]!.type)).toBe("[Int]!");
        const bump = api.graphql.getMutationType()!.getFields()["bump"];
        expect(signature(bump)).toEqual({ type: "Int", args: ["amount: Int!"] });
        expect(resolutionOf(bump!)).toMatchObject({ kind: "function", fn: { name: "bump", volatility: "volatile" }, returns: { kind: "scalar" } });
        const account = api.graphql.getType("Account") as import("graphql").GraphQLObjectType;
        expect(resolutionOf(account.getFields()["fullName"]!)?.kind).toBe("computed");
        const args = introspect(
          api,
          `{ __type(name: "Query") { fields { name args { name defaultValue type { kind } } } } }`,
        )["__type"] as { fields: { name: string; args: { name: string; defaultValue: string | null; type: { kind: string } }[] }[] };
        const addInts = args.fields.find((f) => f.name === "addInts")!;
        expect(addInts.args).toEqual([
          { name: "a", defaultValue: null, type: { kind: "NON_NULL" } },
          { name: "b", defaultValue: "2", type: { kind: "SCALAR" } },
        ]);
      },
    );
  });

  it("applies name directives to tables, columns, enums and foreign keys", async () => {
    await withSchema(
      `${ON}
       create type mood as enum ('happy', 'sad');
       comment on type mood is e'@graphql({"name": "Feeling", "mappings": {"sad": "SAD"}})';
       create table account(id int primary key, mood mood);
       comment on table account is e'@graphql({"name": "UserAccount"})';
       comment on column account.mood is e'@graphql({"name": "feeling"})';
       create table blog(id int primary key, owner_id int not null references account(id));
       comment on constraint blog_owner_id_fkey on blog is e'@graphql({"foreign_name": "author", "local_name": "blogz"})';`,
      async () => {
        const api = await reflectSchema(client);
        expect(fieldNames(introspect(api, `{ __type(name: "UserAccount") { fields { name } } }`))).toEqual([
          "nodeId",
          "id",
          "feeling",
          "blogz",
        ]);
        const feeling = introspect(api, `{ __type(name: "Feeling") { kind enumValues { name } } }`)["__type"];
        expect(feeling).toEqual({ kind: "ENUM", enumValues: [{ name: "happy" }, { name: "SAD" }] });
        expect(fieldNames(introspect(api, `{ __type(name: "Blog") { fields { name } } }`))).toContain("author");
      },
    );
  });

  it("hides entities of schemas that did not opt in to introspection", async () => {
    await withSchema(
      `create schema private;
       comment on schema public is e'@graphql({"inflect_names": true, "introspection": true})';
       comment on schema private is e'@graphql({"inflect_names": true, "introspection": false})';
       create table public.blog(id serial primary key);
       create table private.account(id serial primary key);
       set local search_path = public, private;`,
      async () => {
        const api = await reflectSchema(client);
        expect(introspect(api, `{ a: __type(name: "Blog") { name } b: __type(name: "Account") { name } }`)).toEqual({
          a: { name: "Blog" },
          b: null,
        });
        const accounts = api.graphql.getQueryType()!.getFields()["accountCollection"];
        expect(signature(accounts)).toEqual({ type: "AccountConnection!", args: collectionArgs("Account") });
        expect(resolutionOf(accounts!)).toMatchObject({ kind: "connection", table: { schema: "private", name: "account" } });
      },
    );
  });

  it("keeps the first of two same-named tables on the search path and skips unnameable columns", async () => {
    await withSchema(
      `${ON}
       create schema other;
       create table other.account(id int primary key, other_only text);
       create type "bad-enum" as enum ('a');
       create table public.account(id int primary key, "1st" text, "ok" text, mood "bad-enum");
       set local search_path = public, other;`,
      async () => {
        const api = await reflectSchema(client);
        const account = api.graphql.getType("Account") as import("graphql").GraphQLObjectType;
        expect(Object.keys(account.getFields())).toEqual(["nodeId", "id", "ok", "mood"]);
        expect(String(account.getFields()["mood"]!.type)).toBe("Opaque");
      },
    );
  });

  it("leaves out tables and enums whose type names are already taken", async () => {
    await withSchema(
      `${ON}
       create type blog_edge as enum ('a');
       create table page_info(id int primary key);
       create table blog(id int primary key, kind blog_edge);
       create table blog_filter(id int primary key);`,
      async () => {
        const api = await reflectSchema(client);
        const query = api.graphql.getQueryType()!.getFields();
        expect(query["pageInfoCollection"]).toBeUndefined();
        expect(query["blogFilterCollection"]).toBeUndefined();
        expect(signature(query["blogCollection"])).toEqual({ type: "BlogConnection!", args: collectionArgs("Blog") });
        const blog = api.graphql.getType("Blog") as import("graphql").GraphQLObjectType;
        expect(String(blog.getFields()["kind"]!.type)).toBe("Opaque");
        expect(String((api.graphql.getType("PageInfo") as import("graphql").GraphQLObjectType).getFields()["hasNextPage"]!.type)).toBe("Boolean!");
      },
    );
  });

  it("has no introspection when no schema opted in", async () => {
    await withSchema(`create table blog(id serial primary key);`, async () => {
      const api = await reflectSchema(client);
      expect(api.introspection).toBeNull();
    });
  });

  it("answers a malformed directive with a load error", async () => {
    await withSchema(`comment on schema public is e'@graphql({"inflect_names": tru})';`, async () => {
      const api = await reflectSchema(client);
      expect(api.loadError).toMatch(/^Error while loading schema, check comment directives\./);
    });
  });

  it("describes scalars and directives as pg_graphql does", async () => {
    await withSchema(`${ON} create table t(id int primary key);`, async () => {
      const api = await reflectSchema(client);
      expect(introspect(api, `{ __type(name: "Int") { name kind description } }`)).toEqual({
        __type: { name: "Int", kind: "SCALAR", description: "A scalar integer up to 32 bits" },
      });
      const schema = introspect(api, `{ __schema { directives { name locations } } }`)["__schema"] as {
        directives: { name: string }[];
      };
      expect(schema.directives.map((d) => d.name)).toEqual(["include", "skip"]);
    });
  });

  it("collects introspection fields as other fields: fragments, directives with variables, merged keys", async () => {
    await withSchema(`${ON} create table t(id int primary key);`, async () => {
      const api = await reflectSchema(client);
      const query = `query($skip: Boolean!, $name: String!) {
        __type(name: $name) { ...Kind name @skip(if: $skip) ... on __Type { fields { name } } }
        __type(name: $name) { description }
      }
      fragment Kind on __Type { kind }`;
      expect(introspect(api, query, { skip: true, name: "T" })).toEqual({
        __type: { kind: "OBJECT", fields: [{ name: "nodeId" }, { name: "id" }], description: null },
      });
      expect(() => introspect(api, `query($skip: Boolean) { __type(name: "T") { name @skip(if: $skip) } }`)).toThrow(
        'Value for "if" in @skip directive is required',
      );
      expect(() => introspect(api, `{ __type(name: "T") { ...Missing } }`)).toThrow("Unknown fragment Missing");
    });
  });
});

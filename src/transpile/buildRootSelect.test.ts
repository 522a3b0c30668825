import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../test/harness/db";
import type { Column, Table } from "../catalog/model";
import type { ConnectionPlan, FilterPlan, NodePlan, RootFieldPlan } from "../plan/types";
import { param, pgType } from "../sql/ast";
import { buildRootSelect } from "./buildRootSelect";
import { renderSql } from "../sql/renderSql";

// The SQL builder reads only names from the catalog model; the rest of a column is irrelevant here.
function column(attnum: number, name: string): Column {
  return { attnum, name, typeOid: 0, comment: null, directives: {} } as unknown as Column;
}

const account = {
  oid: 1,
  schema: "public",
  name: "account",
  kind: "table",
  isPartition: false,
  rlsEnabled: false,
  comment: null,
  directives: {},
  columns: [column(1, "id"), column(2, "email")],
  primaryKey: ["id"],
  uniqueIndexes: [],
  foreignKeys: [],
  privileges: { select: true, insert: true, update: true, delete: true },
} as unknown as Table;

const node: NodePlan = {
  table: account,
  fields: [
    { kind: "column", key: "id", column: "id", output: { kind: "json" } },
    { kind: "column", key: "email", column: "email", output: { kind: "json" } },
    { kind: "nodeId", key: "nodeId", table: account },
  ],
};

function connection(filter: FilterPlan | null, extra: Partial<ConnectionPlan> = {}): RootFieldPlan {
  const int4 = pgType("int4");
  return {
    kind: "connection",
    key: "accountCollection",
    connection: {
      table: account,
      source: { kind: "table" },
      filter,
      order: [{ column: "id", direction: "asc", nulls: "last" }],
      backward: false,
      pageSize: param("2", int4),
      offset: null,
      after: null,
      before: null,
      fields: [
        { kind: "totalCount", key: "totalCount" },
        { kind: "pageInfo", key: "pageInfo", fields: [{ kind: "hasNextPage", key: "hasNextPage" }, { kind: "endCursor", key: "endCursor" }] },
        { kind: "edges", key: "edges", fields: [{ kind: "cursor", key: "cursor" }, { kind: "node", key: "node", node }] },
      ],
      ...extra,
    },
  };
}

const emailFilter = (value: string): FilterPlan => ({
  kind: "or",
  items: [
    { kind: "compare", column: "email", op: "eq", value: param(value, pgType("text")) },
    { kind: "isNull", column: "email", negated: false },
  ],
});

describe("buildRootSelect", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query("create table public.account(id int primary key, email text)");
    await db.query("insert into public.account values (1, 'a@x'), (2, null), (3, 'c@x'), (4, 'd@x')");
  });
  afterAll(async () => db.drop());

  const run = async (plan: RootFieldPlan) => {
    const st = renderSql(buildRootSelect(plan)!);
    const res = await db.query(st.sql, st.params);
    return JSON.parse(res.rows[0].result);
  };

  it("renders a connection as one deterministic statement", () => {
    const st = renderSql(buildRootSelect(connection(emailFilter("a@x")))!);
    expect(st.sql).toMatchInlineSnapshot(`"select coalesce((select ('{"totalCount":' || coalesce(((select count(*) as "count" from "public"."account" as "t1" where ((("t1"."email" = $1::"pg_catalog"."text") or ("t1"."email" is null)))))::text, 'null') || ',"pageInfo":{"hasNextPage":' || coalesce(((count(*) > $2::"pg_catalog"."int4"))::text, 'null') || ',"endCursor":' || coalesce(to_json((array_agg(replace(encode(convert_to((jsonb_build_array("p0"."c_id"))::"pg_catalog"."text", 'utf8'), 'base64'), chr(10), '')) filter (where ("p0"."__n" <= $2::"pg_catalog"."int4")))[array_upper(array_agg(replace(encode(convert_to((jsonb_build_array("p0"."c_id"))::"pg_catalog"."text", 'utf8'), 'base64'), chr(10), '')) filter (where ("p0"."__n" <= $2::"pg_catalog"."int4")), 1)])::text, 'null') || '},"edges":' || coalesce('[' || string_agg(('{"cursor":' || coalesce(to_json(replace(encode(convert_to((jsonb_build_array("p0"."c_id"))::"pg_catalog"."text", 'utf8'), 'base64'), chr(10), ''))::text, 'null') || ',"node":{"id":' || coalesce(to_json("p0"."c_id")::text, 'null') || ',"email":' || coalesce(to_json("p0"."c_email")::text, 'null') || ',"nodeId":' || coalesce(to_json(replace(encode(convert_to((jsonb_build_array($3::"pg_catalog"."text", $4::"pg_catalog"."text", "p0"."c_id"))::"pg_catalog"."text", 'utf8'), 'base64'), chr(10), ''))::text, 'null') || '}}'), ',') filter (where ("p0"."__n" <= $2::"pg_catalog"."int4")) || ']', '[]') || '}') as "json" from (select "t2"."id" as "c_id", "t2"."email" as "c_email", row_number() over (order by "t2"."id" asc nulls last) as "__n" from "public"."account" as "t2" where ((("t2"."email" = $1::"pg_catalog"."text") or ("t2"."email" is null))) order by "t2"."id" asc nulls last limit (select ($2::"pg_catalog"."int4" + 1) as "n")) as "p0"), 'null') as "result""`);
  });

  it("gives hostile and benign filter values the same SQL text", () => {
    const a = renderSql(buildRootSelect(connection(emailFilter("x")))!);
    const b = renderSql(buildRootSelect(connection(emailFilter("'); drop table account; --")))!);
    expect(b.sql).toBe(a.sql);
    expect(b.params).toContain("'); drop table account; --");
  });

  it("executes: filter, page window, cursors and node ids", async () => {
    const out = await run(connection(emailFilter("a@x")));
    expect(out.totalCount).toBe(2);
    expect(out.edges.map((e: { node: { id: number } }) => e.node.id)).toEqual([1, 2]);
    expect(out.edges[0].cursor).toBe("WzFd");
    expect(out.edges[0].node.nodeId).toBe("WyJwdWJsaWMiLCAiYWNjb3VudCIsIDFd");
    expect(out.pageInfo).toEqual({ hasNextPage: false, endCursor: "WzJd" });
  });

  it("executes: after a cursor, and backward pages keep forward order", async () => {
    const after = await run(connection(null, { after: { values: [param("1", pgType("int4"))], nulls: [false] } }));
    expect(after.edges.map((e: { node: { id: number } }) => e.node.id)).toEqual([2, 3]);
    expect(after.pageInfo.hasNextPage).toBe(true);
    const last = await run(connection(null, { backward: true }));
    expect(last.edges.map((e: { node: { id: number } }) => e.node.id)).toEqual([3, 4]);
  });

  it("executes: after a cursor on a nullable column, null or not, in every null ordering", async () => {
    const rows: { id: number; email: string | null }[] = [
      { id: 1, email: "a@x" },
      { id: 2, email: null },
      { id: 3, email: "c@x" },
      { id: 4, email: "d@x" },
    ];
    for (const direction of ["asc", "desc"] as const) {
      for (const nulls of ["first", "last"] as const) {
        const order = [
          { column: "email", direction, nulls },
          { column: "id", direction: "asc" as const, nulls: "last" as const },
        ];
        // The expected order, computed here: nulls as a block at their end, then email, then id.
        const sorted = [...rows].sort((a, b) => {
          if (a.email !== b.email) {
            if (a.email === null) return nulls === "first" ? -1 : 1;
            if (b.email === null) return nulls === "first" ? 1 : -1;
            return (a.email < b.email ? -1 : 1) * (direction === "asc" ? 1 : -1);
          }
          return a.id - b.id;
        });
        for (let at = 0; at < sorted.length; at++) {
          const cursorRow = sorted[at]!;
          const plan = connection(null, {
            order,
            pageSize: param("10", pgType("int4")),
            after: { values: [param(cursorRow.email, pgType("text")), param(String(cursorRow.id), pgType("int4"))], nulls: [cursorRow.email === null, false] },
          });
          const out = await run(plan);
          const label = `${direction} nulls ${nulls} after ${cursorRow.id}`;
          expect(out.edges.map((e: { node: { id: number } }) => e.node.id), label).toEqual(sorted.slice(at + 1).map((r) => r.id));
        }
      }
    }
  });

  it("lets the plan cache settle on a generic plan for a connection page", async () => {
    // Enough rows that a known page size would make each custom plan look cheaper.
    await db.query("create table public.account_many as select i as id, 'e' || i as email from generate_series(1, 5000) i");
    await db.query("alter table public.account_many add primary key (id); analyze public.account_many");
    const many = { ...account, name: "account_many" } as Table;
    const st = renderSql(buildRootSelect(connection({ kind: "compare", column: "email", op: "gt", value: param("e", pgType("text")) }, { table: many }))!);
    const client = await db.connect();
    try {
      // More runs than PostgreSQL's five trial custom plans.
      for (let i = 0; i < 8; i++) await client.query({ name: "page", text: st.sql, values: st.params });
      const { rows } = await client.query("select generic_plans::int as generic from pg_prepared_statements where name = 'page'");
      expect(rows[0].generic).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });

  it("renders writes as data-modifying CTEs that run and return the written rows", async () => {
    const text = pgType("text");
    const int4 = pgType("int4");
    const hostile = "x'); delete from account; --";
    const statement = renderSql({
      with: [
        {
          name: "written",
          statement: {
            kind: "insert",
            schema: "public",
            table: "account",
            alias: "t",
            columns: ["id", "email"],
            rows: [[param("10", int4), param(hostile, text)], [param("11", int4), null]],
            returning: [{ expr: { kind: "column", table: "t", name: "email" }, alias: "c_email" }],
          },
        },
      ],
      columns: [{ expr: { kind: "call", schema: null, name: "jsonb_agg", args: [{ kind: "column", table: "w", name: "c_email" }] }, alias: "result" }],
      from: { kind: "cte", name: "written", alias: "w" },
      where: null,
      orderBy: [],
      limit: null,
      offset: null,
    });
    expect(statement.sql).toBe(
      'with "written" as (insert into "public"."account" as "t" ("id", "email") values ($1::"pg_catalog"."int4", $2::"pg_catalog"."text"), ($3::"pg_catalog"."int4", default) returning "t"."email" as "c_email") select jsonb_agg("w"."c_email") as "result" from "written" as "w"',
    );
    await db.query("begin");
    try {
      const res = await db.query(statement.sql, statement.params);
      expect(res.rows[0].result).toEqual([hostile, null]);
      expect((await db.query("select count(*)::int as n from account")).rows[0].n).toBe(6);
    } finally {
      await db.query("rollback");
    }
  });
});

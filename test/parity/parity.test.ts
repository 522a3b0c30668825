// Behaviours where pg_graphql 1.6.1 answers in a particular way that users rely on: aggregate
// values, filters, cursors and page flags, node ids, operation selection, argument ranges,
// directive errors, introspection of non-object types and field naming.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { resolveInNode } from "../read/nodeResolve";

const SCHEMA = `
  create extension pg_graphql cascade;
  comment on schema public is '@graphql({"inflect_names": true, "introspection": true})';
  create table account(id int primary key, email text not null, score numeric, rating float8, visits bigint);
  comment on table account is '@graphql({"aggregate": {"enabled": true}, "totalCount": {"enabled": true}})';
  create table blog(id int primary key, owner_id int references account(id), "parentId" int references blog(id), title text);
  create table logic(id int primary key, "and" int, "or" text, "not" bool);
  create table plain(id int primary key, n int);
  comment on table plain is '@graphql({"totalCount": {"enabled": true}})';
  create table big(id int primary key, f float8);
  comment on table big is '@graphql({"aggregate": {"enabled": true}})';
  create view account_stats as select id as account_id, length(email) as email_length from account;
  create function _stats(account) returns account_stats stable language sql
    as $$ select * from account_stats where account_id = $1.id limit 1 $$;
  insert into account values (1, 'a@x.com', 10.50, 1.5, 7), (2, 'bb@x.com', 19.49, 2.5, 3), (3, 'ccc@x.com', null, null, null);
  insert into blog values (1, 1, null, 'one'), (2, 1, 1, 'two'), (3, 2, 1, 'three'), (4, 3, null, 'four');
  insert into logic values (1, 1, 'x', true), (2, 2, 'y', false), (3, null, null, null);
  insert into plain values (1, 1), (2, 2), (3, 3), (4, 4), (5, 5);
  insert into big values (1, 1e300), (2, 1.5e300), (3, 1e300);
`;

describe("pg_graphql parity", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    client = await db.connect();
    await client.query(SCHEMA);
  });
  afterAll(async () => db.drop());

  const ask = async (query: string, variables: Record<string, unknown> = {}, operationName: string | null = null) =>
    (await resolveInNode(client, query, variables, operationName)).response;
  const errorOf = async (query: string, variables: Record<string, unknown> = {}, operationName: string | null = null) => {
    const r = await ask(query, variables, operationName);
    expect(r.errors, JSON.stringify(r)).toBeDefined();
    return r.errors.map((e: { message: string }) => e.message).join("; ");
  };

  describe("operation selection", () => {
    it("refuses an anonymous operation beside another one", async () => {
      expect(await errorOf(`{ plainCollection { totalCount } } query B { __typename }`)).toBe(
        "Anonymous operations must be the only defined operation",
      );
      expect(await errorOf(`{ __typename } { __typename }`)).toBe("Anonymous operations must be the only defined operation");
    });

    it("refuses an unknown or missing operation name among several", async () => {
      expect(await errorOf(`query A { __typename } query B { __typename }`, {}, "C")).toBe("Operation not found");
      expect(await errorOf(`query A { __typename } query B { __typename }`)).toBe("Operation not found");
      expect(await ask(`query A { __typename } query B { __typename }`, {}, "B")).toEqual({ data: { __typename: "Query" } });
    });
  });

  describe("argument ranges", () => {
    it("names the argument that is negative, literal or variable", async () => {
      for (const arg of ["first", "last", "offset"]) {
        const extra = arg === "offset" ? "first: 1, " : "";
        expect(await errorOf(`{ plainCollection(${extra}${arg}: -1) { edges { node { id } } } }`)).toBe(`\`${arg}\` must be an unsigned integer`);
        expect(await errorOf(`query($n: Int) { plainCollection(${extra}${arg}: $n) { edges { node { id } } } }`, { n: -2 })).toBe(
          `\`${arg}\` must be an unsigned integer`,
        );
      }
    });

    it("checks atMost of update and delete the same way", async () => {
      // atMost is a signed bound: below zero, every delete or update impacts too many records.
      expect(await errorOf(`mutation { deleteFromPlainCollection(atMost: -1, filter: {id: {eq: 1}}) { affectedCount } }`)).toBe(
        "delete impacts too many records",
      );
      expect(
        await errorOf(`mutation($n: Int!) { updatePlainCollection(set: {n: 0}, atMost: $n, filter: {id: {eq: 99}}) { affectedCount } }`, { n: -1 }),
      ).toBe("update impacts too many records");
      expect((await client.query("select count(*)::int as n from plain")).rows[0].n).toBe(5);
    });
  });

  describe("aggregates", () => {
    it("answers sums, averages, minima and maxima as JSON numbers", async () => {
      const r = await ask(`{ accountCollection { aggregate { count
        sum { id score rating visits } avg { id score rating visits } min { id score email rating } max { id score email visits } } } }`);
      expect(r.errors).toBeUndefined();
      expect(r.data.accountCollection.aggregate).toEqual({
        count: 3,
        sum: { id: 6, score: 29.99, rating: 4, visits: 10 },
        avg: { id: 2, score: 14.995, rating: 2, visits: 5 },
        min: { id: 1, score: 10.5, email: "a@x.com", rating: 1.5 },
        max: { id: 3, score: 19.49, email: "ccc@x.com", visits: 7 },
      });
    });

    it("prints an exact average with one decimal, as a 64-bit float prints", async () => {
      const { statements } = await resolveInNode(client, `{ accountCollection { aggregate { avg { id } sum { id } } } }`);
      const { rows } = await client.query(statements[0]!.sql, statements[0]!.params);
      const text: string = typeof rows[0].result === "string" ? rows[0].result : JSON.stringify(rows[0].result);
      expect(text.replace(/\s/g, "")).toContain(`"avg":{"id":2.0}`);
      expect(text.replace(/\s/g, "")).toContain(`"sum":{"id":6}`);
    });

    it("averages floats near the top of their range without overflowing", async () => {
      const r = await ask(`{ bigCollection { aggregate { avg { f } sum { f } } } }`);
      expect(r.errors).toBeUndefined();
      expect(r.data.bigCollection.aggregate.avg.f).toBeCloseTo(1.1666666666666667e300, -285);
    });

    it("asks for the aggregate directive on tables without it", async () => {
      expect(await errorOf(`{ plainCollection { aggregate { count } } }`)).toBe("enable the aggregate directive to use aggregates");
    });

    it("names unknown fields inside an aggregate by the type's name", async () => {
      expect(await errorOf(`{ accountCollection { aggregate { sum { nope } } } }`)).toBe(
        'Unknown or invalid field "nope" selected on type "AccountSumAggregateResult"',
      );
    });

    it("declares BigInt sums and BigFloat averages in introspection", async () => {
      const r = await ask(`{ __type(name: "AccountSumAggregateResult") { fields { name type { name } } } }`);
      const types = Object.fromEntries(r.data.__type.fields.map((f: any) => [f.name, f.type.name]));
      expect(types).toMatchObject({ id: "BigInt", score: "BigFloat", rating: "BigFloat", visits: "BigInt" });
    });
  });

  describe("columns named and, or, not", () => {
    it("filter on the column, not as logic", async () => {
      const ids = async (filter: string) =>
        (await ask(`{ logicCollection(filter: ${filter}) { edges { node { id } } } }`)).data.logicCollection.edges.map((e: any) => e.node.id);
      expect(await ids(`{and: {eq: 1}}`)).toEqual([1]);
      expect(await ids(`{or: {eq: "y"}}`)).toEqual([2]);
      expect(await ids(`{not: {is: NULL}}`)).toEqual([3]);
      expect(await ids(`{}`)).toEqual([1, 2, 3]);
      const t = await ask(`{ __type(name: "LogicFilter") { inputFields { name type { kind name } } } }`);
      const fields = Object.fromEntries(t.data.__type.inputFields.map((f: any) => [f.name, f.type]));
      expect(fields.and).toEqual({ kind: "INPUT_OBJECT", name: "IntFilter" });
      expect(fields.or).toEqual({ kind: "INPUT_OBJECT", name: "StringFilter" });
      expect(fields.not).toEqual({ kind: "INPUT_OBJECT", name: "BooleanFilter" });
    });
  });

  describe("empty filters", () => {
    it("match every row", async () => {
      for (const filter of [`{not: {}}`, `{and: [], or: [], not: {}}`, `{or: [{}, {id: {eq: 1}}]}`, `{and: [{}]}`]) {
        const r = await ask(`{ plainCollection(filter: ${filter}) { edges { node { id } } } }`);
        expect(r.errors, filter).toBeUndefined();
      }
      const count = async (filter: string) =>
        (await ask(`{ accountCollection(filter: ${filter}) { totalCount } }`)).data.accountCollection.totalCount;
      expect(await count(`{not: {}}`)).toBe(3);
      expect(await count(`{and: [], or: [], not: {}}`)).toBe(3);
      expect(await count(`{or: [{}, {id: {eq: 1}}]}`)).toBe(1);
    });
  });

  describe("node ids", () => {
    it("refuse a filter by the node id of another collection", async () => {
      const blog = (await ask(`{ blogCollection(first: 1) { edges { node { nodeId } } } }`)).data.blogCollection.edges[0].node.nodeId;
      expect(await errorOf(`query($n: ID) { accountCollection(filter: {nodeId: {eq: $n}}) { edges { node { id } } } }`, { n: blog })).toBe(
        "nodeId belongs to a different collection",
      );
    });

    it("refuse a node id of an unknown collection", async () => {
      const id = Buffer.from(JSON.stringify(["public", "nothing", 1])).toString("base64");
      expect(await errorOf(`query($n: ID!) { node(nodeId: $n) { nodeId } }`, { n: id })).toBe(
        "Collection referenced by nodeId did not match any known collection",
      );
    });

    it("decode as pg_graphql decodes", async () => {
      const b64 = (s: string) => Buffer.from(s).toString("base64");
      const cases: [string, string][] = [
        ["%%%", "Invalid value passed to nodeId argument. Error 2"],
        [Buffer.from([0xff, 0xfe]).toString("base64"), "Invalid value passed to nodeId argument. Error 3"],
        [b64("[not json"), "Invalid value passed to nodeId argument. Error 4"],
        [b64(`["public", "account"]`), "Invalid value passed to nodeId argument. Error 5"],
        [b64(`[1, "account", 1]`), "Invalid value passed to nodeId argument. Error 6"],
        [b64(`["public", 2, 1]`), "Invalid value passed to nodeId argument. Error 7"],
        [b64(`{"a": 1}`), "Invalid value passed to nodeId argument. Error 10"],
      ];
      for (const [id, message] of cases) {
        expect(await errorOf(`query($n: ID!) { node(nodeId: $n) { nodeId } }`, { n: id }), id).toBe(message);
      }
    });
  });

  describe("paging", () => {
    const page = async (args: string, selection: string) => {
      const r = await ask(`{ plainCollection(${args}) { ${selection} } }`);
      expect(r.errors, `${args} ${selection}: ${JSON.stringify(r.errors)}`).toBeUndefined();
      return r.data.plainCollection;
    };
    const cursorOf = async (id: number) =>
      (await ask(`{ plainCollection(filter: {id: {eq: ${id}}}) { edges { cursor } } }`)).data.plainCollection.edges[0].cursor;

    it("answers pageInfo alone with every argument combination", async () => {
      const c2 = await cursorOf(2);
      for (const args of [`after: "${c2}"`, `before: "${c2}"`, `first: 2, after: "${c2}"`, `last: 1, before: "${c2}"`, `first: 1, offset: 1`]) {
        for (const sel of ["pageInfo { hasPreviousPage hasNextPage }", "totalCount", "pageInfo { startCursor } totalCount", "edges { cursor }"]) {
          await page(args, sel);
        }
      }
    });

    it("says whether rows really lie before and after the page", async () => {
      const c1 = await cursorOf(1);
      const c3 = await cursorOf(3);
      const c5 = await cursorOf(5);
      expect((await page(`first: 2, after: "${c1}"`, "pageInfo { hasPreviousPage hasNextPage }")).pageInfo).toEqual({
        hasPreviousPage: true,
        hasNextPage: true,
      });
      expect((await page(`last: 2, before: "${c1}"`, "pageInfo { hasPreviousPage hasNextPage }")).pageInfo).toEqual({
        hasPreviousPage: false,
        hasNextPage: true,
      });
      expect((await page(`last: 2, before: "${c3}"`, "pageInfo { hasPreviousPage hasNextPage }")).pageInfo).toEqual({
        hasPreviousPage: false,
        hasNextPage: true,
      });
      expect((await page(`first: 2, after: "${c3}"`, "pageInfo { hasPreviousPage hasNextPage }")).pageInfo).toEqual({
        hasPreviousPage: true,
        hasNextPage: false,
      });
      expect((await page(`first: 2, after: "${c5}"`, "pageInfo { hasPreviousPage hasNextPage } edges { cursor }"))).toEqual({
        pageInfo: { hasPreviousPage: true, hasNextPage: false },
        edges: [],
      });
      // Cursors of rows the filter leaves out: only matching rows count.
      expect((await page(`last: 2, before: "${c5}", filter: {id: {lt: 3}}`, "pageInfo { hasPreviousPage hasNextPage }")).pageInfo).toEqual({
        hasPreviousPage: false,
        hasNextPage: false,
      });
      expect((await page(`first: 2, after: "${c1}", filter: {id: {gt: 3}}`, "pageInfo { hasPreviousPage hasNextPage }")).pageInfo).toEqual({
        hasPreviousPage: false,
        hasNextPage: false,
      });
      const empty = await ask(`{ plainCollection(first: 2, offset: 3, filter: {id: {gt: 10}}) { pageInfo { hasPreviousPage hasNextPage } } }`);
      expect(empty.data.plainCollection).toEqual({ pageInfo: { hasPreviousPage: false, hasNextPage: false } });
    });

    it("accepts a cursor back with the ordering it was taken under", async () => {
      const r = await ask(`{ accountCollection(orderBy: [{score: DescNullsFirst}, {email: AscNullsLast}], first: 1) { edges { cursor node { id } } } }`);
      const cursor = r.data.accountCollection.edges[0].cursor;
      const next = await ask(
        `query($c: Cursor) { accountCollection(orderBy: [{score: DescNullsFirst}, {email: AscNullsLast}], first: 5, after: $c) { edges { node { id } } } }`,
        { c: cursor },
      );
      expect(next.errors).toBeUndefined();
      expect(next.data.accountCollection.edges.map((e: any) => e.node.id)).toEqual([2, 1]);
      expect(
        await errorOf(`query($c: Cursor) { accountCollection(first: 5, after: $c) { edges { node { id } } } }`, { c: cursor }),
      ).toBe("orderBy clause incompatible with pagination cursor");
      // Cursors from pageInfo alone, from a backward page, with the ordering given as a variable.
      const order = [{ score: "DescNullsFirst" }, { email: "AscNullsLast" }];
      const q = `query($o: [AccountOrderBy!], $c: Cursor) { accountCollection(orderBy: $o, first: 5, after: $c) { edges { node { id } } } }`;
      const info = await ask(`query($o: [AccountOrderBy!]) { accountCollection(orderBy: $o, first: 1) { pageInfo { endCursor } } }`, { o: order });
      expect((await ask(q, { o: order, c: info.data.accountCollection.pageInfo.endCursor })).data.accountCollection.edges).toHaveLength(2);
      const back = await ask(`query($o: [AccountOrderBy!]) { accountCollection(orderBy: $o, last: 2) { pageInfo { startCursor } } }`, { o: order });
      expect((await ask(q, { o: order, c: back.data.accountCollection.pageInfo.startCursor })).data.accountCollection.edges).toHaveLength(1);
      const byKey = await ask(`{ accountCollection(orderBy: [{id: DescNullsLast}], first: 1) { edges { cursor } } }`);
      const afterKey = await ask(`query($c: Cursor) { accountCollection(orderBy: [{id: DescNullsLast}], after: $c) { edges { node { id } } } }`, {
        c: byKey.data.accountCollection.edges[0].cursor,
      });
      expect(afterKey.data.accountCollection.edges.map((e: any) => e.node.id)).toEqual([2, 1]);
    });
  });

  describe("computed fields", () => {
    it("expose a row of a key-less view as a nullable object", async () => {
      const r = await ask(`{ accountCollection(filter: {id: {eq: 2}}) { edges { node { stats { accountId emailLength } } } } }`);
      expect(r.errors).toBeUndefined();
      expect(r.data.accountCollection.edges[0].node.stats).toEqual({ accountId: 2, emailLength: 8 });
      const t = await ask(`{ __type(name: "Account") { fields { name type { kind name } } } }`);
      expect(t.data.__type.fields.find((f: any) => f.name === "stats").type).toEqual({ kind: "OBJECT", name: "AccountStats" });
      const view = await ask(`{ __type(name: "AccountStats") { fields { name } interfaces { name } } }`);
      expect(view.data.__type).toEqual({ fields: [{ name: "accountId" }, { name: "emailLength" }], interfaces: [] });
      expect((await ask(`{ __schema { queryType { fields { name } } } }`)).data.__schema.queryType.fields.map((f: any) => f.name)).not.toContain(
        "accountStatsCollection",
      );
    });
  });

  describe("introspection of the schema", () => {
    it("describes the schema as pg_graphql does", async () => {
      const r = await ask(`{ __schema { description queryType { name } } }`);
      expect(r).toEqual({ data: { __schema: { description: "Represents the GraphQL schema of the database", queryType: { name: "Query" } } } });
    });
  });

  describe("introspection of non-object types", () => {
    it("answers every __Type field as pg_graphql does for each kind", async () => {
      const sel = `kind name fields { name } interfaces { name } possibleTypes { name } enumValues { name } inputFields { name } ofType { name }`;
      const r = await ask(`{ s: __type(name: "Int") { ${sel} } e: __type(name: "OrderByDirection") { ${sel} } i: __type(name: "IntFilter") { ${sel} } n: __type(name: "Node") { ${sel} } }`);
      expect(r.errors).toBeUndefined();
      expect(r.data.s).toMatchObject({ kind: "SCALAR", fields: null, interfaces: [], possibleTypes: null, enumValues: [], inputFields: null, ofType: null });
      expect(r.data.e).toMatchObject({ kind: "ENUM", fields: null, interfaces: null, possibleTypes: null, inputFields: null, ofType: null });
      expect(r.data.i).toMatchObject({ kind: "INPUT_OBJECT", fields: null, interfaces: null, possibleTypes: null, enumValues: null, ofType: null });
      expect(r.data.n).toMatchObject({ kind: "INTERFACE", inputFields: null, enumValues: null, ofType: null });
    });
  });

  describe("relationship field names", () => {
    it("strip an _id suffix and keep camelCase columns whole", async () => {
      const r = await ask(`{ __type(name: "Blog") { fields { name } } }`);
      const names = r.data.__type.fields.map((f: any) => f.name);
      expect(names).toContain("owner");
      expect(names).toContain("parentId");
      expect(names).toContain("blog");
      expect(names).not.toContain("parent");
    });
  });
});

describe("comment directive type errors", () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await freshDatabase();
    client = await db.connect();
    await client.query(`create table a(id int primary key); create table b(id int primary key, account_id int);`);
  });
  afterAll(async () => db.drop());

  const loadError = async (comment: string) => {
    await client.query(`comment on table b is '${comment.replace(/'/g, "''")}'`);
    const r = (await resolveInNode(client, `{ __typename }`)).response;
    return r.errors?.[0]?.message;
  };

  it("say what type the directive parser expected", async () => {
    const prefix = "Error while loading schema, check comment directives. ";
    expect(
      await loadError(
        `@graphql({"foreign_keys": [{"local_columns": "account_id", "foreign_schema": "public", "foreign_table": "a", "foreign_columns": ["id"]}]})`,
      ),
    ).toBe(prefix + 'invalid type: string "account_id", expected a sequence');
    expect(await loadError(`@graphql({"name": 5})`)).toBe(prefix + "invalid type: integer `5`, expected a string");
    expect(await loadError(`@graphql({"totalCount": {"enabled": "yes"}})`)).toBe(prefix + 'invalid type: string "yes", expected a boolean');
    expect(await loadError(`@graphql({"max_rows": -1})`)).toBe(prefix + "invalid value: integer `-1`, expected u64");
    expect(await loadError(`@graphql({"foreign_keys": [{"local_columns": ["account_id"]}]})`)).toBe(prefix + "missing field `foreign_schema`");
  });
});

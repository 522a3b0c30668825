// Enum values in generated statements. A filter's labels are written into the statement as a
// literal of the enum type, so every plan (the generic one a prepared statement moves to after
// five executions included) sees the constant; elsewhere (written values, arguments) a label is a
// parameter bound as the enum, not text cast in the statement (text to enum goes through
// enum_in, a stable function, which a plan for given values keeps as a per-row conversion).
// Asserted on the statements and on the plans PostgreSQL makes, not on time.
import { GraphQLEnumType } from "graphql";
import { describe, expect, it } from "vitest";
import { boundStatements, type BoundStatement } from "../../src/execute/compileOperation";
import { Resolver } from "../../src/execute/Resolver";
import { reflectedDatabase } from "../harness/reflectSchema";

describe("enum values in generated statements", () => {
  const t = reflectedDatabase(`
      create extension pg_graphql cascade;
      comment on schema public is '@graphql({"inflect_names": true})';
      create type mood as enum ('happy', 'sad', 'meh', 'it''s', 'back\\slash', ''');drop table entry;--');
      create table entry(id int primary key, mood mood not null, note text not null);
      create index on entry(mood);
      comment on type mood is $$@graphql({"mappings": {"it's": "its", "back\\\\slash": "backslash", "');drop table entry;--": "dropTable"}})$$;
      comment on table entry is '@graphql({"totalCount": {"enabled": true}})';
      insert into entry select i, (array['happy', 'sad', 'meh', 'it''s', 'back\\slash', ''');drop table entry;--'])[1 + i % 6]::mood, 'entry ' || i
        from generate_series(1, 3000) i;
      analyze entry;`);

  function statementsOf(query: string, variables: Record<string, unknown>): BoundStatement[] {
    const compiled = Resolver.compile(t.api, query, JSON.stringify(variables), null);
    const out: BoundStatement[] = [];
    const run = boundStatements(compiled);
    for (let next = run.next(); !next.done; next = run.next(null)) out.push(next.value);
    return out;
  }

  /** The plan of the statement, prepared with the types it is bound as, after `executions` runs with its values. */
  async function planAfter(s: BoundStatement, executions: number): Promise<string> {
    const values = s.params.map((p) => (p === null ? "null" : `'${p.replace(/'/g, "''")}'`));
    const args = values.length === 0 ? "" : `(${values.join(", ")})`;
    await t.client.query(`prepare probe${s.types.length === 0 ? "" : `(${s.types.join(", ")})`} as ${s.sql}`);
    try {
      for (let i = 0; i < executions; i++) await t.client.query(`execute probe${args}`);
      const { rows } = await t.client.query(`explain (verbose, costs off) execute probe${args}`);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    } finally {
      await t.client.query("deallocate probe");
    }
  }

  const byMood = `query Q($m: Mood!) { entryCollection(filter: { mood: { eq: $m } }) { totalCount } }`;

  it("writes a filter's labels into the statement, as the enum", () => {
    const [s] = statementsOf(`query Q($m: Mood!, $n: String!) { entryCollection(filter: { mood: { eq: $m }, note: { neq: $n } }) { totalCount } }`, { m: "meh", n: "x" });
    expect(s!.sql).toContain(`"mood" = 'meh'::"public"."mood"`);
    expect(s!.params).not.toContain("meh");
    expect(s!.types.every((type) => type === "text")).toBe(true);
    const [list] = statementsOf(`{ entryCollection(filter: { mood: { in: [happy, sad] } }) { totalCount } }`, {});
    expect(list!.sql).toContain(`= any('{"happy","sad"}'::"public"."mood"[])`);
    // The same set in another order, or with a label twice, is the same statement.
    const [again] = statementsOf(`{ entryCollection(filter: { mood: { in: [sad, happy, sad] } }) { totalCount } }`, {});
    expect(again!.sql).toBe(list!.sql);
    const [neq] = statementsOf(`{ entryCollection(filter: { mood: { neq: happy } }) { totalCount } }`, {});
    expect(neq!.sql).toContain(`<> 'happy'::"public"."mood"`);
  });

  it("keeps a null operand a parameter (it matches nothing)", () => {
    const [s] = statementsOf(`query Q($m: Mood) { entryCollection(filter: { mood: { eq: $m } }) { totalCount } }`, { m: null });
    expect(s!.sql).not.toContain("::\"public\".\"mood\" ");
    expect(s!.params).toContain(null);
  });

  it("binds a written label as the enum", () => {
    const [s] = statementsOf(`mutation { insertIntoEntryCollection(objects: [{id: 9001, mood: sad, note: "n"}]) { affectedCount } }`, {});
    const at = s!.params.indexOf("sad");
    expect(at).toBeGreaterThanOrEqual(0);
    expect(s!.types[at]).toBe('"public"."mood"');
  });

  it("keeps the constant in the generic plan", async () => {
    const [s] = statementsOf(byMood, { m: "sad" });
    const plan = await planAfter(s!, 6);
    expect(plan).toMatch(/mood = 'sad'::mood/);
    expect(plan).not.toMatch(/cstring|mood = \$\d/);
  });

  it("quotes labels holding quotes, backslashes and SQL", async () => {
    const mood = t.api.graphql.getType("Mood");
    if (!(mood instanceof GraphQLEnumType)) throw new Error("Mood is not an enum");
    const hostile = ["it's", "back\\slash", "');drop table entry;--"];
    const values = mood.getValues().filter((v) => hostile.includes(v.value as string));
    expect(values.map((v) => v.value).sort()).toEqual([...hostile].sort());
    for (const v of values) {
      const expected = Number((await t.client.query("select count(*) as n from entry where mood = $1", [v.value])).rows[0].n);
      expect(expected).toBe(500);
      const { rows } = await t.client.query("select graphql.resolve($1, $2::jsonb) as answer", [byMood, JSON.stringify({ m: v.name })]);
      expect(rows[0].answer).toEqual({ data: { entryCollection: { totalCount: expected } } });
    }
    expect(Number((await t.client.query("select count(*) as n from entry")).rows[0].n)).toBe(3000);
  });

  it("answers as the table says through graphql.resolve, in a new backend and after, label after label", async () => {
    const fresh = await t.db.connect();
    try {
      for (let i = 0; i < 9; i++) {
        const m = ["meh", "sad", "happy"][i % 3]!;
        const expected = Number((await t.client.query("select count(*) as n from entry where mood = $1", [m])).rows[0].n);
        const { rows } = await fresh.query("select graphql.resolve($1, $2::jsonb) as answer", [byMood, JSON.stringify({ m })]);
        expect(rows[0].answer).toEqual({ data: { entryCollection: { totalCount: expected } } });
      }
    } finally {
      await fresh.end();
    }
  });
});

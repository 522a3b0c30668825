// Enum values in filters are bound as the enum, not as text cast in the statement: text to enum
// goes through enum_in, a stable function, so a plan made for the given values (a prepared
// statement's first executions are) kept the cast as a per-row filter and converted the label
// again on every row it scanned. Asserted on the plans PostgreSQL makes, not on time.
import { describe, expect, it } from "vitest";
import { boundStatements, type BoundStatement } from "../../src/execute/compileOperation";
import { Resolver } from "../../src/execute/Resolver";
import { reflectedDatabase } from "../harness/reflectSchema";

describe("enum values bound as the enum", () => {
  const t = reflectedDatabase(`
      create extension pg_graphql cascade;
      comment on schema public is '@graphql({"inflect_names": true})';
      create type mood as enum ('happy', 'sad', 'meh');
      create table entry(id int primary key, mood mood not null, note text not null);
      comment on table entry is '@graphql({"totalCount": {"enabled": true}})';
      insert into entry select i, (array['happy', 'sad', 'meh'])[1 + i % 3]::mood, 'entry ' || i from generate_series(1, 3000) i;
      analyze entry;`);

  function statementsOf(query: string, variables: Record<string, unknown>): BoundStatement[] {
    const compiled = Resolver.compile(t.api, query, JSON.stringify(variables), null);
    const out: BoundStatement[] = [];
    const run = boundStatements(compiled);
    for (let next = run.next(); !next.done; next = run.next(null)) out.push(next.value);
    return out;
  }

  /** The first plan of the statement prepared with `types`: one made for the given values. */
  async function firstPlan(s: BoundStatement, types: readonly string[]): Promise<string> {
    await t.client.query(`prepare probe(${types.join(", ")}) as ${s.sql}`);
    try {
      const values = s.params.map((p) => (p === null ? "null" : `'${p.replace(/'/g, "''")}'`));
      const { rows } = await t.client.query(`explain (verbose, costs off) execute probe(${values.join(", ")})`);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    } finally {
      await t.client.query("deallocate probe");
    }
  }

  const byMood = `query Q($m: Mood!) { entryCollection(filter: { mood: { eq: $m } }) { totalCount } }`;

  it("binds an enum's label as the enum and everything else as text", () => {
    const [s] = statementsOf(`query Q($m: Mood!, $n: String!) { entryCollection(filter: { mood: { eq: $m }, note: { neq: $n } }) { totalCount } }`, { m: "meh", n: "x" });
    const enumAt = s!.params.indexOf("meh");
    expect(enumAt).toBeGreaterThanOrEqual(0);
    expect(s!.types[enumAt]).toBe('"public"."mood"');
    expect(s!.types.filter((t) => t !== "text")).toEqual(['"public"."mood"']);
    // A list of labels stays one text parameter (array input syntax), cast in the statement.
    const [list] = statementsOf(`{ entryCollection(filter: { mood: { in: [happy, sad] } }) { totalCount } }`, {});
    expect(list!.types.every((t) => t === "text")).toBe(true);
  });

  it("plans the comparison on the enum constant, where text cast in the statement is converted per row", async () => {
    const [s] = statementsOf(byMood, { m: "sad" });
    const bound = await firstPlan(s!, s!.types);
    expect(bound).toMatch(/\(entry\.mood = 'sad'::mood\)|\(t\d+\.mood = 'sad'::mood\)/);
    expect(bound).not.toMatch(/cstring/);
    const asText = await firstPlan(s!, s!.types.map(() => "text"));
    expect(asText).toMatch(/\('sad'::cstring\)::mood/);
  });

  it("answers as the table says through graphql.resolve, in a new backend and after", async () => {
    const expected = Number((await t.client.query("select count(*) as n from entry where mood = 'meh'")).rows[0].n);
    const fresh = await t.db.connect();
    try {
      for (let i = 0; i < 7; i++) {
        const { rows } = await fresh.query("select graphql.resolve($1, $2::jsonb) as answer", [byMood, JSON.stringify({ m: "meh" })]);
        expect(rows[0].answer).toEqual({ data: { entryCollection: { totalCount: expected } } });
      }
    } finally {
      await fresh.end();
    }
  });
});

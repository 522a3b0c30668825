// Unit tests of statement splitting and the statements a migration refuses.
import { describe, expect, it } from "vitest";
import { notInMigration, splitStatements } from "./sqlStatements";

describe("splitStatements", () => {
  it("splits on PostgreSQL's grammar: quotes, dollar quotes, comments, multibyte text", async () => {
    const text = `create table t (id int); -- a comment; still a comment
insert into t values (1), (';');
create function f() returns text language sql as $$ select 'é;' $$;
select 'ünïcode' as "a;b"`;
    const statements = await splitStatements(text);
    expect(statements.map((s) => s.kind)).toEqual(["CreateStmt", "InsertStmt", "CreateFunctionStmt", "SelectStmt"]);
    expect(statements.map((s) => s.text)).toEqual([
      "create table t (id int)",
      "-- a comment; still a comment\ninsert into t values (1), (';')",
      "create function f() returns text language sql as $$ select 'é;' $$",
      `select 'ünïcode' as "a;b"`,
    ]);
  });

  it("refuses text that does not parse with the parser's message", async () => {
    await expect(splitStatements("selec 1")).rejects.toThrow('syntax error at or near "selec"');
  });
});

describe("notInMigration", () => {
  const reason = async (sql: string) => notInMigration((await splitStatements(sql))[0]!);
  it("names what cannot run in a transaction", async () => {
    expect(await reason("create index concurrently i on t (x)")).toBe("CREATE INDEX CONCURRENTLY");
    expect(await reason("drop index concurrently i")).toBe("DROP INDEX CONCURRENTLY");
    expect(await reason("reindex (concurrently) table t")).toBe("REINDEX CONCURRENTLY");
    expect(await reason("vacuum t")).toBe("VACUUM");
    expect(await reason("commit")).toBe("transaction control (BEGIN, COMMIT, ROLLBACK)");
    expect(await reason("begin")).toBe("transaction control (BEGIN, COMMIT, ROLLBACK)");
    expect(await reason("create database d")).toBe("Createdb");
  });
  it("lets the rest through", async () => {
    for (const sql of ["create index i on t (x)", "savepoint a", "rollback to savepoint a", "analyze t", "drop index i"]) {
      expect(await reason(sql), sql).toBeUndefined();
    }
  });
});

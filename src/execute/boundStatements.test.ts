import { describe, expect, it } from "vitest";
import { param, pgType, type ParamNode } from "../sql/ast";
import type { Statement } from "../sql/renderSql";
import { boundStatements, type CompiledOperation } from "./compileOperation";

const int4 = pgType("int4");
const text = pgType("text");

function statement(sql: string, nodes: ParamNode[]): Statement {
  return { sql, params: nodes.map((n) => n.value), nodes, types: nodes.map(() => "text") };
}

/** Runs a compiled request's statements against canned results; returns what each was bound with. */
function run(statements: Statement[][], results: (string | null)[]): { bound: (string | null)[][]; fields: (string | null)[] } {
  const compiled: CompiledOperation = { statements, failed: false, assemble: () => "" };
  const bound: (string | null)[][] = [];
  const steps = boundStatements(compiled);
  for (let next = steps.next(); ; ) {
    if (next.done) return { bound, fields: next.value };
    bound.push(next.value.params);
    next = steps.next(results[bound.length - 1] ?? null);
  }
}

describe("boundStatements", () => {
  it("binds a value an earlier statement handed back, as its own parameter", () => {
    const parentKey: ParamNode = { ...param(null, int4), link: { kind: "value", step: 0, row: 1, column: 1 } };
    const whole: ParamNode = { ...param(null, pgType("jsonb")), link: { kind: "result", step: 0 } };
    const { bound, fields } = run(
      [[statement("insert parents", [param("a", text)]), statement("insert children", [parentKey, param("c", text)]), statement("select", [whole])]],
      ['[["1", "10"], ["2", null], ["3", "30"]]', null, '{"ok": true}'],
    );
    expect(bound).toEqual([["a"], [null, "c"], ['[["1", "10"], ["2", null], ["3", "30"]]']]);
    expect(fields).toEqual(['{"ok": true}']);
  });

  it("reads values of several rows and columns of one result", () => {
    const key = (row: number, column: number): ParamNode => ({ ...param(null, int4), link: { kind: "value", step: 0, row, column } });
    const { bound } = run([[statement("insert parents", []), statement("insert children", [key(0, 0), key(2, 1), key(1, 0)])]], ['[["7", "8"], ["9", "10"], ["11", "12"]]']);
    expect(bound[1]).toEqual(["7", "12", "9"]);
  });

  it("fails as a bug when a link names a row its statement did not hand back", () => {
    const missing: ParamNode = { ...param(null, int4), link: { kind: "value", step: 0, row: 3, column: 0 } };
    expect(() => run([[statement("insert parents", []), statement("insert children", [missing])]], ['[["1"]]'])).toThrow(/names a row and column/);
  });
});

import { describe, expect, it } from "vitest";
import { binary, col, jsonNumberOrBool, jsonSubquery, jsonValue, param, pgType, select, type JsonExpr } from "./ast";
import { quoteIdent } from "./quoteIdent";
import { renderSql } from "./renderSql";

describe("quoteIdent", () => {
  it("doubles embedded quotes", () => {
    expect(quoteIdent('we"ird')).toBe('"we""ird"');
    expect(quoteIdent("plain")).toBe('"plain"');
  });
});

describe("renderSql", () => {
  it("numbers parameters in order and reuses a node's number", () => {
    const p = param("x", pgType("text"));
    const s = renderSql(
      select({
        columns: [{ expr: col("t", "a"), alias: "a" }],
        from: { kind: "table", schema: "public", name: "t", alias: "t" },
        where: binary("=", col("t", "a"), p),
        orderBy: [],
        limit: param("5", pgType("int4")),
        offset: p,
      }),
    );
    expect(s.sql).toBe(
      'select "t"."a" as "a" from "public"."t" as "t" where ("t"."a" = $1::"pg_catalog"."text") limit $2::"pg_catalog"."int4" offset $1::"pg_catalog"."text"',
    );
    expect(s.params).toEqual(["x", "5"]);
  });

  const json = (e: JsonExpr) => renderSql(select({ columns: [{ expr: e, alias: "j" }] })).sql.replace(/^select | as "j"$/g, "");

  it("builds objects as text, the constants of nested objects merged", () => {
    const inner: JsonExpr = { kind: "jsonObject", entries: [{ key: "id", value: jsonNumberOrBool(col("t", "id")) }] };
    const e: JsonExpr = { kind: "jsonObject", entries: [{ key: "node", value: inner }, { key: "name", value: jsonValue(col("t", "name")) }] };
    expect(json(e)).toBe(`('{"node":{"id":' || coalesce(("t"."id")::text, 'null') || '},"name":' || coalesce(to_json("t"."name")::text, 'null') || '}')`);
    expect(json({ kind: "jsonObject", entries: [{ key: "node", value: { kind: "jsonObject", entries: [] } }] })).toBe(`'{"node":{}}'::text`);
  });

  it("writes SQL NULL members as null, __typename-like parameters through to_json", () => {
    const s = renderSql(select({ columns: [{ expr: jsonValue(param(null, pgType("text"))), alias: "j" }] }));
    expect(s.sql).toBe(`select coalesce(to_json($1::"pg_catalog"."text")::text, 'null') as "j"`);
    expect(s.params).toEqual([null]);
  });

  it("escapes keys as JSON strings, then as SQL literals", () => {
    const one = (key: string) => json({ kind: "jsonObject", entries: [{ key, value: jsonNumberOrBool({ kind: "int", value: 1 }) }] });
    expect(one("a'b")).toBe(`('{"a''b":' || coalesce((1)::text, 'null') || '}')`);
    expect(one('q"\\')).toBe(`(E'{"q\\\\"\\\\\\\\":' || coalesce((1)::text, 'null') || '}')`);
    expect(() => one("\0")).toThrow(/internal error/);
    expect(() => one("\ud800")).toThrow(/internal error/);
    expect(one("\ud83d\ude00")).toContain("\ud83d\ude00");
  });

  it("aggregates lists with string_agg, [] for no rows", () => {
    const e: JsonExpr = {
      kind: "jsonAgg",
      item: jsonValue(col("p", "c_title")),
      orderBy: [{ expr: col("p", "__n"), direction: "desc", nulls: "last" }],
      filter: binary("<=", col("p", "__n"), { kind: "int", value: 3 }),
    };
    expect(json(e)).toBe(
      `coalesce('[' || string_agg(coalesce(to_json("p"."c_title")::text, 'null'), ',' order by "p"."__n" desc nulls last) filter (where ("p"."__n" <= 3)) || ']', '[]')`,
    );
  });

  it("falls back to null for a subquery without rows, and refuses one selecting plain SQL", () => {
    const sub = jsonSubquery({ from: { kind: "table", schema: "public", name: "t", alias: "t" }, limit: { kind: "int", value: 1 } }, jsonValue(col("t", "a")));
    expect(json(sub)).toBe(`coalesce((select coalesce(to_json("t"."a")::text, 'null') as "json" from "public"."t" as "t" limit 1), 'null')`);
    const plain: JsonExpr = { kind: "jsonSubquery", select: select({ columns: [{ expr: col("t", "a"), alias: "a" }] }) };
    expect(() => json(plain)).toThrow(/internal error/);
  });

  it("groups long concatenations so that their nesting stays shallow", () => {
    const entries = Array.from({ length: 3000 }, (_, i) => ({ key: "k" + i, value: jsonNumberOrBool({ kind: "int", value: i }) }));
    const sql = json({ kind: "jsonObject", entries });
    expect(sql.match(/coalesce\(/g)).toHaveLength(3000);
    // 6001 operands: groups of 64, then groups of those.
    expect(sql.startsWith("(((")).toBe(true);
    let depth = 0;
    let maxRun = 0;
    for (const part of sql.split(/('[^']*')/)) {
      if (part.startsWith("'")) continue;
      for (const ch of part) depth += ch === "(" ? 1 : ch === ")" ? -1 : 0;
      maxRun = Math.max(maxRun, part.split(" || ").length - 1);
    }
    expect(depth).toBe(0);
    expect(maxRun).toBeLessThanOrEqual(64);
  });

  it("renders hostile values as parameters, never into the text", () => {
    const hostile = "'; drop table x; --";
    const text = (v: string) => renderSql(select({ columns: [{ expr: param(v, pgType("text")), alias: "v" }] }));
    expect(text(hostile).sql).toBe(text("benign").sql);
    expect(text(hostile).params).toEqual([hostile]);
  });

  it("refuses constants that are not plain names", () => {
    expect(() => renderSql(select({ columns: [{ expr: { kind: "text", value: "a'b" }, alias: "v" }] }))).toThrow(/internal error/);
  });
});

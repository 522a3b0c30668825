import { describe, expect, it } from "vitest";
import { binary, col, param, pgType, select, type Expr } from "./ast";
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

  it("splits an object past 50 pairs into merged calls", () => {
    const entries = Array.from({ length: 51 }, (_, i) => ({ key: "k" + i, value: { kind: "int", value: i } as Expr }));
    const s = renderSql(select({ columns: [{ expr: { kind: "jsonObject", entries }, alias: "o" }] }));
    expect(s.sql.match(/jsonb_build_object\(/g)).toHaveLength(2);
    expect(s.sql).toContain(" || ");
    expect(s.sql).toContain(")::json");
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

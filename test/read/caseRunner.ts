// Test support: runs a pg_regress-style case file statement by statement over node-pg, answering
// every `graphql.resolve(...)` call with the Node-side pipeline on the same connection (so it sees
// the case's uncommitted DDL), and compares each single-value result with the expected output.
//
// `graphql.resolve` is a stub that looks its answer up in a temp table; when the answer is missing
// it raises (SQLSTATE GQ001) with its arguments, the runner computes the answer, stores it and
// re-runs the statement from a savepoint.
import type pg from "pg";
import { resolveInNode } from "./nodeResolve";

export const STUB_SQL = `
create schema if not exists graphql;
create or replace function graphql.resolve(
    "query" text, "variables" jsonb default '{}', "operationName" text default null, "extensions" jsonb default null)
  returns jsonb language plpgsql volatile as $f$
declare a jsonb;
begin
  -- Each answer serves one call: the same query may answer differently after later DDL.
  delete from __answers
   where q = "query" and v = coalesce("variables", '{}'::jsonb)::text and o is not distinct from "operationName"
   returning answer into a;
  if found then return a; end if;
  raise exception using errcode = 'GQ001',
    message = jsonb_build_object('query', "query", 'variables', "variables", 'operationName', "operationName")::text;
end $f$;
`;

/** Splits SQL text into statements, keeping quotes, dollar quotes and comments intact. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end;
    } else if (c === "'") {
      i++;
      while (i < sql.length && !(sql[i] === "'" && sql[i + 1] !== "'")) i += sql[i] === "'" ? 2 : 1;
      i++;
    } else if (c === "$") {
      const m = /^\$[A-Za-z_]*\$/.exec(sql.slice(i));
      if (m) {
        const end = sql.indexOf(m[0], i + m[0].length);
        i = end === -1 ? sql.length : end + m[0].length;
      } else i++;
    } else if (c === ";") {
      out.push(sql.slice(start, i + 1));
      start = i + 1;
      i++;
    } else i++;
  }
  if (sql.slice(start).trim()) out.push(sql.slice(start));
  return out.map((s) => s.replace(/^\s*\n/, "")).filter((s) => s.replace(/--[^\n]*/g, "").trim() !== "");
}

/** The single values psql printed after each statement echo, in order ("" for none). */
export function expectedValues(rawOut: string, rawStatements: string[]): (string | null)[] {
  // psql's echo leaves out blank lines.
  const dropBlank = (t: string) => t.split("\n").filter((l) => l.trim() !== "").join("\n");
  const out = dropBlank(rawOut);
  const statements = rawStatements.map(dropBlank);
  const values: (string | null)[] = [];
  let pos = 0;
  for (const st of statements) {
    const at = out.indexOf(st.trim(), pos);
    if (at === -1) {
      values.push(null);
      continue;
    }
    pos = at + st.trim().length;
    const rest = out.slice(pos).split("\n").slice(1);
    // A result block: header, dashes, rows, "(n rows)".
    if (rest.length < 3 || !/^-+(\+-+)*$/.test(rest[1] ?? "") || /\+/.test(rest[1] ?? "")) {
      values.push(null);
      continue;
    }
    const lines: string[] = [];
    let k = 2;
    while (k < rest.length && !/^\(\d+ rows?\)$/.test(rest[k]!)) lines.push(rest[k++]!);
    if (k - 2 === 0 || lines.length === 0) {
      values.push(null);
      continue;
    }
    values.push(
      lines
        .map((l) => l.slice(1).replace(/\s*\+$/, "").replace(/\s+$/, ""))
        .join("\n"),
    );
  }
  return values;
}

export interface CaseResult {
  name: string;
  /** resolve statements whose output was compared; a case comparing none proves nothing. */
  compared: number;
  /** resolve statements whose expected output could not be found in the .out file. */
  unmatched: number;
  mismatches: { statement: string; expected: string; actual: string }[];
}

export async function runCase(client: pg.Client, name: string, sql: string, out: string): Promise<CaseResult> {
  // Created by the superuser before the case switches roles; every role of the case may use it.
  await client.query("create temp table if not exists __answers(q text, v text, o text, answer jsonb); grant all on __answers to public");
  const statements = splitStatements(sql);
  const expected = expectedValues(out, statements);
  const mismatches: CaseResult["mismatches"] = [];
  let n = 0;
  let compared = 0;
  let unmatched = 0;
  for (let si = 0; si < statements.length; si++) {
    const st = statements[si]!;
    let rows: Record<string, unknown>[] | null = null;
    for (let attempt = 0; attempt < 50; attempt++) {
      // Transaction control runs bare: a savepoint of ours around `savepoint a` would take `a`
      // with it when released.
      const control = /^\s*(begin|commit|rollback|savepoint|release|end)\b/i.test(st.replace(/--[^\n]*/g, ""));
      const inTx = control
        ? false
        : await client.query("savepoint __case").then(
            () => true,
            () => false,
          );
      try {
        const res = await client.query(st);
        rows = (Array.isArray(res) ? res[res.length - 1] : res).rows ?? [];
        break;
      } catch (e) {
        const err = e as { code?: string; message: string };
        if (inTx) await client.query("rollback to savepoint __case").catch(() => {});
        if (err.code !== "GQ001") {
          rows = [{ error: "ERROR: " + err.message }];
          break;
        }
        const args = JSON.parse(err.message) as { query: string; variables: unknown; operationName: string | null };
        n++;
        const answer = await resolveInNode(client, args.query, args.variables ?? {}, args.operationName).catch(
          (x: Error) => ({ response: { data: null, errors: [{ message: x.message }] }, statements: [] }),
        );
        await client.query("insert into __answers values ($1, coalesce($2::jsonb, '{}'::jsonb)::text, $3, $4::jsonb)", [
          args.query,
          args.variables === null ? null : JSON.stringify(args.variables),
          args.operationName,
          JSON.stringify(answer.response),
        ]);
      }
    }
    const want = expected[si];
    const asksResolve = /graphql\.resolve\(/.test(st);
    if (want === null || want === undefined) {
      if (asksResolve) unmatched++;
      continue;
    }
    // Other single-column results (helpers such as comment_directive) are compared as well.
    if (!asksResolve && !/^\s*(--[^\n]*\n\s*)*select\b/i.test(st)) continue;
    compared++;
    const r = rows ?? [];
    const actual = r.every((row) => Object.keys(row).length === 1) ? r.map((row) => cell(Object.values(row)[0])).join("\n") : JSON.stringify(r);
    if (actual !== want) mismatches.push({ statement: st.trim().slice(0, 400), expected: want, actual });
  }
  void n;
  return { name, compared, unmatched, mismatches };
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return v ? "t" : "f";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

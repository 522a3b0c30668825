// types/typescript over HTTP: the generated TypeScript of a project's schema compiles with tsc and
// types queries of the postgrest-js client (a wrong column, enum value or row shape fails to
// compile); included_schemas picks the schemas; bad input is a 400.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createProject, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;
let dir: string;

const schema = `
create type public.size as enum ('small', 'large');
create table public.shelf (id bigint generated always as identity primary key, title text not null);
create table public.widget (id int primary key, label text, size public.size not null default 'small',
  shelf_id bigint references public.shelf (id), meta jsonb);
create view public.widget_labels as select id, label from public.widget;
create function public.widget_count() returns int language sql stable as $$ select count(*)::int from public.widget $$;
create schema private;
create table private.secret (id int primary key);`;

const types = (query = "") => api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/types/typescript${query}`);

function tsc(...files: string[]): Promise<{ code: number; output: string }> {
  const bin = resolve("node_modules/typescript/bin/tsc");
  const flags = ["--strict", "--noEmit", "--skipLibCheck", "--target", "es2022", "--module", "esnext", "--moduleResolution", "bundler"];
  return new Promise((done) =>
    execFile(process.execPath, [bin, ...flags, ...files], { cwd: dir, timeout: 120_000 }, (error, stdout, stderr) =>
      done({ code: error ? 1 : 0, output: stdout + stderr }),
    ),
  );
}

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("types@example.com");
  ref = (await createProject(platform.baseUrl, token, "types")).ref;
  expect((await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, { query: schema })).status).toBe(201);
  dir = mkdtempSync(join(tmpdir(), "generated-types-"));
  symlinkSync(resolve("node_modules"), join(dir, "node_modules"));
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("types/typescript", () => {
  it("generates types that compile and type a query", async () => {
    const r = await types();
    expect(r.status).toBe(200);
    const generated = r.body.types as string;
    expect(generated).toContain("export type Database");
    expect(generated).toContain("widget_labels");
    expect(generated).not.toContain("secret");
    writeFileSync(join(dir, "database.ts"), generated);
    writeFileSync(
      join(dir, "query.ts"),
      `import { PostgrestClient } from "@supabase/postgrest-js";
import type { Database, Enums, TablesInsert } from "./database";

const client = new PostgrestClient<Database>("http://localhost:1/rest/v1");
export async function widgets() {
  const { data } = await client.from("widget").select("id, label, size, shelf(title)").eq("size", "large");
  const rows: { id: number; label: string | null; size: "small" | "large"; shelf: { title: string } | null }[] = data ?? [];
  return rows;
}
export const size: Enums<"size"> = "small";
export const insert: TablesInsert<"widget"> = { id: 1, meta: { any: ["json"] } };
export const count = client.rpc("widget_count");
`,
    );
    const good = await tsc("database.ts", "query.ts");
    expect(good.output).toBe("");
    expect(good.code).toBe(0);

    writeFileSync(
      join(dir, "wrong.ts"),
      `import { PostgrestClient } from "@supabase/postgrest-js";
import type { Database, Enums, TablesInsert } from "./database";
const client = new PostgrestClient<Database>("http://localhost:1/rest/v1");
export const size: Enums<"size"> = "medium";
export const insert: TablesInsert<"widget"> = { label: "no id" };
export async function rows() {
  const { data } = await client.from("widget").select("id");
  const labels: string[] = (data ?? []).map((w) => w.label);
  return labels;
}
`,
    );
    const bad = await tsc("database.ts", "wrong.ts");
    expect(bad.code).toBe(1);
    expect(bad.output).toContain("wrong.ts(4,14)");
    expect(bad.output).toContain("wrong.ts(5,14)");
    expect(bad.output).toContain("wrong.ts(8,");
  });

  it("sends the generator's queries one at a time: pg warns of no queued query", async () => {
    const warnings: string[] = [];
    const listener = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", listener);
    try {
      expect((await types()).status).toBe(200);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("warning", listener);
    }
    expect(warnings.filter((w) => /client\.query\(\)|already executing a query/.test(w))).toEqual([]);
  });

  it("includes the schemas named in included_schemas", async () => {
    const r = await types("?included_schemas=public,private");
    expect(r.status).toBe(200);
    expect(r.body.types).toContain("secret");
    const onlyPrivate = await types("?included_schemas=private");
    expect(onlyPrivate.body.types).toContain("secret");
    expect(onlyPrivate.body.types).not.toContain("widget_labels");
  });

  it("refuses other users with 403 and bad refs with 400", async () => {
    const stranger = await platform.token("types-stranger@example.com");
    expect((await api(platform.baseUrl, stranger, "GET", `/v1/projects/${ref}/types/typescript`)).status).toBe(403);
    expect((await api(platform.baseUrl, token, "GET", `/v1/projects/NOT-A-REF/types/typescript`)).status).toBe(400);
  });
});

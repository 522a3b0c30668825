// advisors/performance and advisors/security over HTTP: every lint fires on the object made to
// trigger it and not on its clean twin; a fresh project has no lint; the lint shape; lint_type.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createProject, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;

interface Lint {
  name: string;
  level: string;
  facing: string;
  categories: string[];
  metadata: { schema?: string; name?: string; entity?: string; type?: string };
  cache_key: string;
  [key: string]: unknown;
}

const sql = (query: string) => api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, { query });
const advisors = async (kind: "performance" | "security", query = "") => {
  const r = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/advisors/${kind}${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.lints as Lint[];
};

// Each lint: the schema that triggers it (`bad`) and its clean twin (`good`), both in one project.
const schema = `
create table public.parent (id int primary key);
create table public.fk_bad (id int primary key, parent_id int references public.parent);
create table public.fk_good (id int primary key, parent_id int references public.parent);
create index on public.fk_good (parent_id);

create table public.nopk_bad (x int);
create table public.nopk_good (x int primary key);

create table public.idx_t (id int primary key, a int, b int);
create index unused_bad on public.idx_t (a);
create index unused_good on public.idx_t (b);

create table public.mpp_bad (id int primary key);
alter table public.mpp_bad enable row level security;
create policy p1 on public.mpp_bad for select to anon using (true);
create policy p2 on public.mpp_bad for all to anon using (id > 0);
create table public.mpp_good (id int primary key);
alter table public.mpp_good enable row level security;
create policy p1 on public.mpp_good for select to anon using (true);
create policy p2 on public.mpp_good for select to authenticated using (true);

create table public.dup_t (id int primary key, a int, b int);
create index dup_a1 on public.dup_t (a);
create index dup_a2 on public.dup_t (a);
create index dup_b on public.dup_t (b);
create index dup_b_partial on public.dup_t (b) where b > 0;

create table public.initplan_bad (id int primary key, owner uuid);
alter table public.initplan_bad enable row level security;
create policy own on public.initplan_bad using (owner = auth.uid());
create table public.initplan_good (id int primary key, owner uuid);
alter table public.initplan_good enable row level security;
create policy own on public.initplan_good using (owner = (select auth.uid()));

create table public.pol_bad (id int primary key);
create policy p on public.pol_bad using (true);
create table public.pol_good (id int primary key);
alter table public.pol_good enable row level security;
create policy p on public.pol_good using (true);

create table public.nopol_bad (id int primary key);
alter table public.nopol_bad enable row level security;

create table public.open_bad (id int primary key);
create table public.open_good (id int primary key);
revoke all on public.open_good from anon, authenticated;

create view public.view_bad as select 1 as x;
create view public.view_good with (security_invoker = true) as select 1 as x;

create schema private;
create materialized view public.mv_bad as select 1 as x;
create materialized view private.mv_good as select 1 as x;

create function public.fn_bad() returns int language sql as 'select 1';
create function public.fn_good() returns int language sql set search_path = '' as 'select 1';

create extension citext schema public;
create schema ext;
create extension pg_trgm schema ext;

create table public.meta_bad (id int primary key);
alter table public.meta_bad enable row level security;
create policy m on public.meta_bad using ((select auth.jwt()) -> 'user_metadata' ->> 'role' = 'admin');
create table public.meta_good (id int primary key);
alter table public.meta_good enable row level security;
create policy m on public.meta_good using ((select auth.jwt()) -> 'app_metadata' ->> 'role' = 'admin');

create table public.reg_t (id int primary key, bad regproc, good regclass);
`;

// What names a finding: the table, view, function or extension, or the index or column in it.
const subject = (lint: Lint) => lint.metadata.entity ?? lint.metadata.name;

const cases: { name: string; kind: "performance" | "security"; bad: string; good: string }[] = [
  { name: "unindexed_foreign_keys", kind: "performance", bad: "fk_bad", good: "fk_good" },
  { name: "no_primary_key", kind: "performance", bad: "nopk_bad", good: "nopk_good" },
  { name: "unused_index", kind: "performance", bad: "unused_bad", good: "unused_good" },
  { name: "multiple_permissive_policies", kind: "performance", bad: "mpp_bad", good: "mpp_good" },
  { name: "duplicate_index", kind: "performance", bad: "dup_a1,dup_a2", good: "dup_b" },
  { name: "auth_rls_initplan", kind: "performance", bad: "initplan_bad", good: "initplan_good" },
  { name: "policy_exists_rls_disabled", kind: "security", bad: "pol_bad", good: "pol_good" },
  { name: "rls_enabled_no_policy", kind: "security", bad: "nopol_bad", good: "pol_good" },
  { name: "rls_disabled_in_public", kind: "security", bad: "open_bad", good: "open_good" },
  { name: "security_definer_view", kind: "security", bad: "view_bad", good: "view_good" },
  { name: "materialized_view_in_api", kind: "security", bad: "mv_bad", good: "mv_good" },
  { name: "function_search_path_mutable", kind: "security", bad: "fn_bad", good: "fn_good" },
  { name: "extension_in_public", kind: "security", bad: "citext", good: "pg_trgm" },
  { name: "rls_references_user_metadata", kind: "security", bad: "meta_bad", good: "meta_good" },
  { name: "unsupported_reg_types", kind: "security", bad: "bad", good: "good" },
];

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("advisors@example.com");
  ref = (await createProject(platform.baseUrl, token, "advisors")).ref;
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

describe("advisors", () => {
  it("finds nothing in a fresh project", async () => {
    expect(await advisors("performance")).toEqual([]);
    expect(await advisors("security")).toEqual([]);
  });

  describe("on a schema with a trigger and a clean twin per lint", () => {
    const found: Record<string, Lint[]> = {};
    beforeAll(async () => {
      expect((await sql(schema)).status).toBe(201);
      // Use one index (the statistics are flushed when the statement ends).
      const used = await sql("set enable_seqscan = off; select * from public.idx_t where b = 1; select pg_stat_force_next_flush()");
      expect(used.status).toBe(201);
      found["performance"] = await advisors("performance");
      found["security"] = await advisors("security");
    });

    it.each(cases)("$name fires on $bad and not on $good", ({ name, kind, bad, good }) => {
      const subjects = found[kind]!.filter((l) => l.name === name).map(subject);
      expect(subjects).toContain(bad);
      expect(subjects).not.toContain(good);
    });

    it("answers the hosted lint shape, one category per advisor, unique cache keys", () => {
      const all = [...found["performance"]!, ...found["security"]!];
      expect(new Set(all.map((l) => l.cache_key)).size).toBe(all.length);
      expect(found["performance"]!.every((l) => l.categories.join() === "PERFORMANCE")).toBe(true);
      expect(found["security"]!.every((l) => l.categories.join() === "SECURITY")).toBe(true);
      const fk = found["performance"]!.find((l) => l.name === "unindexed_foreign_keys")!;
      expect(fk).toEqual({
        name: "unindexed_foreign_keys",
        title: "Unindexed foreign keys",
        level: "INFO",
        facing: "EXTERNAL",
        categories: ["PERFORMANCE"],
        description: expect.any(String),
        detail: expect.stringContaining("`public.fk_bad` has a foreign key `fk_bad_parent_id_fkey` on (parent_id)"),
        remediation: expect.stringMatching(/^https:\/\//),
        metadata: { schema: "public", name: "fk_bad", type: "table", fkey_name: "fk_bad_parent_id_fkey", fkey_columns: [2] },
        cache_key: "unindexed_foreign_keys_public_fk_bad_fk_bad_parent_id_fkey",
      });
    });

    it("filters by lint_type and refuses unknown ones", async () => {
      expect(await advisors("security", "?lint_type=sql")).toEqual(found["security"]);
      const r = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/advisors/security?lint_type=config`);
      expect(r.status).toBe(400);
    });
  });

  it("refuses other users with 403", async () => {
    const stranger = await platform.token("advisors-stranger@example.com");
    expect((await api(platform.baseUrl, stranger, "GET", `/v1/projects/${ref}/advisors/security`)).status).toBe(403);
  });
});

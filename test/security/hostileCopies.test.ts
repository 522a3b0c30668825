// A hostile tenant against the platform operations that dump, restore, copy or replay a project
// database: backups and restores, restore points, branches with and without data (and with data
// while the parent is busy, which takes the dump path), push, merge, reset and diff. The traps
// sit where loading, copying and replaying run them: CHECK constraints, domains, generated
// columns, index expressions, materialized views, triggers, a migration history that is a view,
// and a recorded migration that says `reset role`.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answered, hostileWorld, pinned, until, type HostileWorld } from "./hostileWorld";

let world: HostileWorld;
let ref: string;
const p = (rest: string) => `/v1/projects/${ref}${rest}`;
const call = (method: string, path: string, body?: unknown) => world.attacker.call(method, path, body);
// Checks read as a role that is no superuser: a check must not itself fall into the traps.
const inDb = (database: string) => (text: string, params?: unknown[]) => world.reader(database)(text, params);

/** The attacker's data as it was planted (what a restore and a copy must bring back). */
async function plantedData(database: string): Promise<Record<string, unknown>> {
  const q = inDb(database);
  return {
    ledger: (await q("select entry from public.ledger where id <= 4 order by id")).map((r) => r.entry),
    loot: (await q("select note from public.loot order by id")).map((r) => r.note),
    vault: (await q("select secret from public.vault order by id")).map((r) => r.secret),
  };
}

const planted = { ledger: ["ledger-1", "ledger-2", "ledger-3", "ledger-4"], loot: ["loot-1", "loot-2", "loot-3"], vault: ["vault-1", "vault-2"] };

/** What a restore must keep: the tenant's grants (anon was refused loot), its database settings,
 * and the platform's own logins (the API reads the rows on the owner and read-only logins). */
async function restoredAsItWas(): Promise<void> {
  expect(await plantedData(ref)).toEqual(planted);
  expect(await inDb(ref)("select has_table_privilege('anon', 'public.loot', 'select') as anon")).toEqual([{ anon: false }]);
  const settings = await inDb(ref)(
    "select unnest(s.setconfig) as s from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase where d.datname = $1 and s.setrole = 0",
    [ref],
  );
  expect(settings.map((r) => r.s)).toContain("search_path=hostile_path, pg_catalog");
  const owner = answered(await call("POST", p("/database/query"), { query: "select count(*)::int as n from public.loot" }), 201, "query after restore");
  expect(owner.body).toEqual([{ n: 3 }]);
  const reader = answered(await call("POST", p("/database/query/read-only"), { query: "select count(*)::int as n from public.vault" }), 201, "read-only query after restore");
  expect(reader.body).toEqual([{ n: 2 }]);
}

beforeAll(async () => {
  world = await hostileWorld("copies");
  ref = world.attacker.ref;
}, 300_000);
afterAll(async () => {
  await world?.close();
}, 120_000);

describe("backups", () => {
  let backupId: number;

  it("POST database/backups/restore-point (a backup taken now)", () =>
    world.operation("POST restore-point", async () => {
      // Warm the platform's logins first: a restore must not leave them without CONNECT.
      answered(await call("POST", p("/database/query/read-only"), { query: "select 1 as one" }), 201, "read-only query");
      answered(await call("GET", p("/database/migrations")), 200, "migration list");
      const r = answered(await call("POST", p("/database/backups/restore-point"), { name: "planted" }), 201, "restore point");
      expect(r.body).toMatchObject({ name: "planted", status: "AVAILABLE" });
      const list = answered(await call("GET", p("/database/backups")), 200, "backups").body.backups as { id: number; status: string }[];
      expect(list.map((b) => b.status)).toEqual(["COMPLETED"]);
      backupId = list[0]!.id;
    }));

  it("POST database/backups/restore", async () => {
    await world.asTenant(world.attacker)("delete from public.ledger; delete from public.vault; update public.loot set note = 'changed'");
    try {
      await world.operation("POST backups/restore", async () => {
        answered(await call("POST", p("/database/backups/restore"), { id: backupId }), 201, "restore");
        await restoredAsItWas();
      });
    } finally {
      await world.plantSettings();
    }
  });

  it("POST database/backups/undo (back to a restore point)", async () => {
    await world.asTenant(world.attacker)("delete from public.ledger where id > 1");
    try {
      await world.operation("POST backups/undo", async () => {
        answered(await call("POST", p("/database/backups/undo"), { name: "planted" }), 201, "undo");
        await restoredAsItWas();
      });
    } finally {
      await world.plantSettings();
    }
  });
});

interface Branch {
  id: string;
  project_ref: string;
  status: string;
}

async function createBranch(name: string, withData: boolean): Promise<Branch> {
  const r = answered(await call("POST", p("/branches"), { branch_name: name, with_data: withData }), 201, `branch ${name}`);
  expect(r.body.status, `branch ${name}'s replay or copy`).toBe("MIGRATIONS_PASSED");
  return r.body as Branch;
}

/** A branch's own credentials, as the tenant gets them from the API. */
async function asBranchOwner(branch: Branch, sql: string, params: unknown[] = []): Promise<any[]> {
  const config = answered(await call("GET", `/v1/branches/${branch.project_ref}`), 200, "branch config").body;
  const client = new pg.Client({ host: world.cluster.tcpHost, port: world.cluster.port, database: branch.project_ref, user: config.db_user, password: config.db_pass, options: pinned });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The last action run of a branch ended well. */
async function runExited(branch: Branch, runId: string): Promise<void> {
  const run = answered(await call("GET", `/v1/projects/${branch.project_ref}/actions/${runId}`), 200, "action run").body;
  const logs = (await call("GET", `/v1/projects/${branch.project_ref}/actions/${runId}/logs`)).body;
  expect(run.run_steps[0].status, String(logs)).toBe("EXITED");
}

const history = (database: string) => inDb(database)("select version, name from supabase_migrations.schema_migrations order by version");

describe("branches", () => {
  let plain: Branch;

  beforeAll(async () => {
    // The history the platform reads becomes a view that calls a trap (writes pass through it).
    await world.asTenant(world.attacker)(`
      alter table supabase_migrations.schema_migrations rename to history_rows;
      create view supabase_migrations.schema_migrations as
        select * from supabase_migrations.history_rows where hostile.trap('view supabase_migrations.schema_migrations');`);
  });

  it("POST branches without data (the migrations replayed)", () =>
    world.operation("branch without data", async () => {
      plain = await createBranch("plain", false);
      expect((await history(plain.project_ref)).map((m) => m.name)).toEqual(["traps", "reset_role"]);
      expect(await inDb(plain.project_ref)("select note from public.branch_seed")).toEqual([{ note: "seeded" }]);
      expect(await inDb(plain.project_ref)("select tableowner from pg_tables where tablename = 'branch_seed'")).toEqual([{ tableowner: `${plain.project_ref}_owner` }]);
    }));

  it("POST branches with data (a copy of the database)", () =>
    world.operation("branch with data", async () => {
      const copy = await createBranch("copy", true);
      expect(await plantedData(copy.project_ref)).toEqual(planted);
      expect(await inDb(copy.project_ref)("select tableowner from pg_tables where tablename = 'loot'")).toEqual([{ tableowner: `${copy.project_ref}_owner` }]);
    }));

  it("POST branches with data while the parent is busy (dump and restore)", async () => {
    const busy = await world.tenantClient(world.attacker);
    const sleeping = busy.query("select pg_sleep(600)").catch((e: Error) => e);
    try {
      const active = "select count(*)::int as n from pg_stat_activity where datname = $1 and query = 'select pg_sleep(600)' and state = 'active'";
      await until("the tenant's session is busy", async () => (await world.admin()(active, [ref]))[0].n > 0);
      await world.operation("branch with data from a busy parent", async () => {
        const copy = await createBranch("busy", true);
        expect(await plantedData(copy.project_ref)).toEqual(planted);
        expect(await inDb(copy.project_ref)("select tableowner from pg_tables where tablename = 'loot'")).toEqual([{ tableowner: `${copy.project_ref}_owner` }]);
      });
    } finally {
      await world.admin()("select pg_cancel_backend(pid) from pg_stat_activity where datname = $1 and query = 'select pg_sleep(600)'", [ref]);
      await sleeping;
      await busy.end();
    }
  });

  it("POST /v1/branches/{ref}/push", async () => {
    await world.asTenant(world.attacker)(`
      create table public.pushed_one (id int);
      insert into supabase_migrations.schema_migrations (version, name, statements)
        values ('20990101000000', 'pushed', array['create table public.pushed_one (id int)']);`);
    await world.operation("branch push", async () => {
      const r = answered(await call("POST", `/v1/branches/${plain.project_ref}/push`, {}), 201, "push");
      await runExited(plain, r.body.workflow_run_id);
      expect((await history(plain.project_ref)).map((m) => m.name)).toEqual(["traps", "reset_role", "pushed"]);
      expect(await inDb(plain.project_ref)("select to_regclass('public.pushed_one') is not null as t")).toEqual([{ t: true }]);
    });
  });

  it("POST /v1/branches/{ref}/merge", async () => {
    await asBranchOwner(
      plain,
      `create table public.merged_one (id int);
       insert into supabase_migrations.schema_migrations (version, name, statements)
         values ('20990202000000', 'merged', array['create table public.merged_one (id int)']);`,
    );
    await world.operation("branch merge", () =>
      world.writable(async () => {
        const r = answered(await call("POST", `/v1/branches/${plain.project_ref}/merge`, {}), 201, "merge");
        await runExited(plain, r.body.workflow_run_id);
        expect(await inDb(ref)("select to_regclass('public.merged_one') is not null as t")).toEqual([{ t: true }]);
        expect((await history(ref)).map((m) => m.name)).toEqual(["traps", "reset_role", "pushed", "merged"]);
      }),
    );
  });

  it("POST /v1/branches/{ref}/reset", () =>
    world.operation("branch reset", async () => {
      await asBranchOwner(plain, "create table public.dropped_by_reset (id int)");
      const r = answered(await call("POST", `/v1/branches/${plain.project_ref}/reset`, {}), 201, "reset");
      await runExited(plain, r.body.workflow_run_id);
      expect((await history(plain.project_ref)).map((m) => m.name)).toEqual(["traps", "reset_role", "pushed", "merged"]);
      expect(await inDb(plain.project_ref)("select to_regclass('public.dropped_by_reset') is null as gone, to_regclass('public.merged_one') is not null as kept")).toEqual([
        { gone: true, kept: true },
      ]);
    }));

  it("GET /v1/branches/{ref}/diff", () =>
    world.operation("branch diff", async () => {
      await asBranchOwner(plain, "create table public.only_in_branch (id int)");
      const r = answered(await call("GET", `/v1/branches/${plain.project_ref}/diff`), 200, "diff");
      expect(r.body).toMatch(/create table "public"\."only_in_branch"/i);
    }));
});

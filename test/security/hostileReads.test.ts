// A hostile tenant against every platform operation that reads, configures or manages a project
// database in place (hostileCopies.test.ts has backups, restores and branches). The attacker's
// database is full of traps (hostileTraps.ts); after each operation no trap may have run with
// superuser rights, no role may have gained one, pg_hba.conf may hold only rules derived from
// the API's input, and the operation must still have done its job.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRun, hbaText, logOffset, takeMarks, trapRuns } from "./evidence";
import { adminQuery } from "../management/support";
import { answered, hostileWorld, pinned, type HostileWorld } from "./hostileWorld";

let world: HostileWorld;
let ref: string;
const p = (rest: string) => `/v1/projects/${ref}${rest}`;
const call = (method: string, path: string, body?: unknown) => world.attacker.call(method, path, body);
// Checks in the attacker's database read as a role that is no superuser (not to fall into its traps).
const admin = (text: string, params?: unknown[]) => world.reader(ref)(text, params);

/** A new TCP login to the attacker's database: "ok", or PostgreSQL's refusal. */
async function tcpLogin(user: string, password: string, ssl = false): Promise<string> {
  const client = new pg.Client({ host: world.cluster.tcpHost, port: world.cluster.port, database: ref, user, password, ssl: ssl ? { rejectUnauthorized: false } : false, options: pinned });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("select 1");
    return "ok";
  } catch (e) {
    return (e as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

const ownerLogin = () => tcpLogin(world.attacker.owner, world.attacker.password);

beforeAll(async () => {
  world = await hostileWorld("reads", { router: true });
  ref = world.attacker.ref;
}, 300_000);
afterAll(async () => {
  await world?.close();
}, 120_000);

describe("the traps", () => {
  it("are live: a superuser session that resolves names in the tenant's database falls into them", async () => {
    const offset = logOffset(world.cluster);
    const client = new pg.Client({ host: world.cluster.host, port: world.cluster.port, user: "postgres", database: ref });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query("select obj_description(oid, 'pg_namespace') from pg_namespace limit 1");
    } finally {
      await client.end();
    }
    expect(trapRuns(world.cluster, offset).map(describeRun).join("; ")).toMatch(/as postgres \(a superuser\)/);
    // The trap promoted the tenant's owner (operations put that back after each one).
    const [row] = await world.admin()<{ rolsuper: boolean }>("select rolsuper from pg_roles where rolname = $1", [world.attacker.owner]);
    expect(row!.rolsuper).toBe(true);
    await world.admin()(`alter role "${world.attacker.owner}" nosuperuser`);
    await world.admin()(`revoke pg_execute_server_program from "${world.attacker.owner}"`);
    // And ran a program as the server's OS user (its marks removed, so later operations start clean).
    expect(takeMarks(world.cluster).length).toBeGreaterThan(0);
  });
});

describe("catalog reads", () => {
  it("GET database/openapi", () =>
    world.operation("GET database/openapi", async () => {
      const r = answered(await call("GET", p("/database/openapi")), 200, "openapi");
      expect(Object.keys(r.body.definitions)).toEqual(expect.arrayContaining(["loot", "ledger", "vault", "branch_seed"]));
      expect(Object.keys(r.body.definitions.loot.properties)).toEqual(["id", "note", "stamp", "checked"]);
    }));

  it("GET postgrest", () =>
    world.operation("GET postgrest", async () => {
      const r = answered(await call("GET", p("/postgrest")), 200, "postgrest");
      expect(r.body).toMatchObject({ db_schema: "public", max_rows: expect.any(Number) });
    }));

  it("GET /v2/projects/{ref}/config", () =>
    world.operation("GET v2 config", async () => {
      const r = answered(await call("GET", `/v2/projects/${ref}/config`), 200, "v2 config");
      expect(r.body.data.attributes.database.major_version).toBe(15);
      expect(r.body.data.attributes.api.db_schema).toBe("public");
    }));

  it("GET health of every service", () =>
    world.operation("GET health", async () => {
      const services = ["db", "db_postgres_user", "rest", "auth", "pooler", "realtime", "storage", "pg_bouncer"];
      const r = answered(await call("GET", p(`/health?${services.map((s) => `services=${s}`).join("&")}`)), 200, "health");
      expect(r.body.map((h: { name: string }) => h.name).sort()).toEqual([...services].sort());
      const byName = new Map(r.body.map((h: { name: string; healthy: boolean }) => [h.name, h.healthy]));
      expect({ db: byName.get("db"), db_postgres_user: byName.get("db_postgres_user") }).toEqual({ db: true, db_postgres_user: true });
    }));

  it("GET database/context", () =>
    world.operation("GET database/context", async () => {
      const r = answered(await call("GET", p("/database/context")), 200, "database context");
      expect(r.body.databases[0].name).toBe(ref);
      expect(r.body.databases[0].schemas.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(["public", "hostile"]));
    }));
});

describe("work as the tenant's own logins", () => {
  let applied: string;

  it("GET types/typescript", () =>
    world.operation("GET types", async () => {
      const r = answered(await call("GET", p("/types/typescript")), 200, "types");
      expect(r.body.types).toMatch(/loot: \{/);
      expect(r.body.types).toMatch(/ledger: \{/);
    }));

  for (const kind of ["performance", "security"]) {
    it(`GET advisors/${kind}`, () =>
      world.operation(`GET advisors/${kind}`, async () => {
        const r = answered(await call("GET", p(`/advisors/${kind}`)), 200, `${kind} advisors`);
        expect(Array.isArray(r.body.lints)).toBe(true);
      }));
  }

  it("GET database/migrations", () =>
    world.operation("GET migrations", async () => {
      const r = answered(await call("GET", p("/database/migrations")), 200, "migration list");
      expect(r.body.map((m: { name: string }) => m.name)).toEqual(["traps", "reset_role"]);
    }));

  it("POST database/migrations (apply)", () =>
    world.operation("POST migrations", () =>
      world.writable(async () => {
        const body = { query: "create table public.applied_one (id int primary key)", name: "applied_one", rollback: "drop table public.applied_one" };
        answered(await call("POST", p("/database/migrations"), body), 200, "migration apply");
        expect(await admin("select to_regclass('public.applied_one') is not null as t")).toEqual([{ t: true }]);
        const list = answered(await call("GET", p("/database/migrations")), 200, "migration list").body as { version: string; name: string }[];
        applied = list.find((m) => m.name === "applied_one")!.version;
      }),
    ));

  it("PUT database/migrations (record)", () =>
    world.operation("PUT migrations", () =>
      world.writable(async () => {
        answered(await call("PUT", p("/database/migrations"), { query: "select 1", name: "recorded_only", rollback: "select 1" }), 200, "migration record");
        const [row] = await admin("select count(*)::int as n from supabase_migrations.schema_migrations where name = 'recorded_only'");
        expect(row.n).toBe(1);
      }),
    ));

  it("GET database/migrations/{version}", () =>
    world.operation("GET a migration", async () => {
      const r = answered(await call("GET", p(`/database/migrations/${applied}`)), 200, "migration get");
      expect(r.body).toMatchObject({ version: applied, name: "applied_one", statements: ["create table public.applied_one (id int primary key)"] });
    }));

  it("PATCH database/migrations/{version}", () =>
    world.operation("PATCH a migration", () =>
      world.writable(async () => {
        answered(await call("PATCH", p(`/database/migrations/${applied}`), { name: "applied_renamed" }), 200, "migration patch");
        expect(await admin("select name from supabase_migrations.schema_migrations where version = $1", [applied])).toEqual([{ name: "applied_renamed" }]);
      }),
    ));

  it("DELETE database/migrations (roll back)", () =>
    world.operation("DELETE migrations", () =>
      world.writable(async () => {
        answered(await call("DELETE", p(`/database/migrations?gte=${applied}`)), 200, "migration rollback");
        expect(await admin("select to_regclass('public.applied_one') is not null as t")).toEqual([{ t: false }]);
        expect(await admin("select name from supabase_migrations.schema_migrations order by version")).toEqual([{ name: "traps" }, { name: "reset_role" }]);
      }),
    ));

  it("POST database/query as the owner", () =>
    world.operation("POST database/query", () =>
      world.writable(async () => {
        const r = answered(await call("POST", p("/database/query"), { query: "insert into public.ledger values (5, 'ledger-5') returning entry, current_user as who" }), 201, "query");
        expect(r.body).toEqual([{ entry: "ledger-5", who: world.attacker.owner }]);
        expect(await admin("select entry from public.ledger where id = 5")).toEqual([{ entry: "ledger-5" }]);
      }),
    ));

  it("POST database/query read-only (both forms)", () =>
    world.operation("POST database/query read-only", async () => {
      const sql = "select count(*)::int as n from public.vault";
      expect(answered(await call("POST", p("/database/query/read-only"), { query: sql }), 201, "read-only query").body).toEqual([{ n: 2 }]);
      expect(answered(await call("POST", p("/database/query"), { query: sql, read_only: true }), 201, "read_only query").body).toEqual([{ n: 2 }]);
      const write = await call("POST", p("/database/query/read-only"), { query: "delete from public.ledger" });
      expect(write.status).toBe(400);
      expect(await admin("select count(*)::int as n from public.ledger")).toEqual([{ n: 5 }]);
    }));
});

describe("settings", () => {
  it("PATCH postgrest", () =>
    world.operation("PATCH postgrest", async () => {
      const r = answered(await call("PATCH", p("/postgrest"), { max_rows: 77 }), 200, "postgrest update");
      expect(r.body.max_rows).toBe(77);
      const [row] = await admin("select pg_catalog.obj_description(oid, 'pg_namespace') as c from pg_catalog.pg_namespace where nspname = 'public'");
      expect(row.c).toContain('"max_rows":77');
    }));

  it("GET config/database/postgres", () =>
    world.operation("GET postgres config", async () => {
      const r = answered(await call("GET", p("/config/database/postgres")), 200, "postgres config");
      expect(r.body).toMatchObject({ statement_timeout: "5s", work_mem: expect.any(String) });
    }));

  it("PUT config/database/postgres", () =>
    world.operation("PUT postgres config", async () => {
      const r = answered(await call("PUT", p("/config/database/postgres"), { work_mem: "7MB" }), 200, "postgres config update");
      expect(r.body.work_mem).toBe("7MB");
      const rows = await admin("select unnest(s.setconfig) as s from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase where d.datname = $1 and s.setrole = 0", [ref]);
      expect(rows.map((x) => x.s)).toContain("work_mem=7MB");
    }));

  it("GET readonly and POST readonly/temporary-disable", () =>
    world.operation("read-only mode", async () => {
      expect(answered(await call("GET", p("/readonly")), 200, "read-only status").body).toMatchObject({ enabled: false });
      answered(await call("POST", p("/readonly/temporary-disable")), 201, "read-only override");
      expect(answered(await call("GET", p("/readonly")), 200, "read-only status").body).toMatchObject({ enabled: false, override_enabled: true });
    }));

  it("GET and PUT pgsodium", () =>
    world.operation("pgsodium config", async () => {
      expect(answered(await call("GET", p("/pgsodium")), 200, "pgsodium").body.root_key).toMatch(/^[0-9a-f]{64}$/i);
      const key = "ab".repeat(32);
      expect(answered(await call("PUT", p("/pgsodium"), { root_key: key }), 200, "pgsodium update").body).toEqual({ root_key: key });
    }));

  it("GET config/database/pooler", () =>
    world.operation("GET pooler config", async () => {
      const r = answered(await call("GET", p("/config/database/pooler")), 200, "pooler");
      expect(r.body[0]).toMatchObject({ db_user: `${world.attacker.owner}.${ref}`, is_using_scram_auth: true });
    }));

  it("GET config/disk/util and POST config/disk", () =>
    world.operation("disk usage", async () => {
      const [size] = await admin("select pg_catalog.pg_database_size($1)::float8 as bytes", [ref]);
      const used = answered(await call("GET", p("/config/disk/util")), 200, "disk util").body.metrics.fs_used_bytes as number;
      expect(used).toBeGreaterThan(size.bytes / 2);
      expect(used).toBeLessThan(size.bytes * 2);
      answered(await call("POST", p("/config/disk"), { attributes: { type: "gp3", size_gb: 9, iops: 3000, throughput_mibps: 125 } }), 201, "disk change");
    }));

  it("PUT ssl-enforcement", () =>
    world.operation("PUT ssl-enforcement", async () => {
      const on = answered(await call("PUT", p("/ssl-enforcement"), { requestedConfig: { database: true } }), 200, "ssl on");
      expect(on.body).toEqual({ currentConfig: { database: true }, appliedSuccessfully: true });
      expect(await ownerLogin()).toMatch(/no encryption/);
      expect(await tcpLogin(world.attacker.owner, world.attacker.password, true)).toBe("ok");
      answered(await call("PUT", p("/ssl-enforcement"), { requestedConfig: { database: false } }), 200, "ssl off");
      expect(await ownerLogin()).toBe("ok");
    }));
});

describe("network restrictions", () => {
  const rules = () => hbaText(world.cluster).split("\n").filter((l) => l.includes(`"${ref}"`));

  it("POST network-restrictions/apply", () =>
    world.operation("apply network restrictions", async () => {
      world.watch.givenCidrs.add("10.0.0.0/8");
      const r = answered(await call("POST", p("/network-restrictions/apply"), { dbAllowedCidrs: ["10.0.0.0/8"], dbAllowedCidrsV6: [] }), 201, "apply");
      expect(r.headers.get("x-database-enforcement")).toBe("applied");
      expect(rules()).toContain(`host "${ref}" all 10.0.0.0/8 scram-sha-256`);
      expect(await ownerLogin()).toMatch(/pg_hba.conf rejects connection/);
    }));

  it("PATCH network-restrictions (add and remove)", () =>
    world.operation("patch network restrictions", async () => {
      world.watch.givenCidrs.add("127.0.0.1/32");
      answered(await call("PATCH", p("/network-restrictions"), { add: { dbAllowedCidrs: ["127.0.0.1/32"] }, remove: { dbAllowedCidrs: ["10.0.0.0/8"] } }), 200, "patch");
      expect(rules().filter((l) => l.includes("scram-sha-256"))).toEqual([`host "${ref}" all 127.0.0.1/32 scram-sha-256`]);
      expect(await ownerLogin()).toBe("ok");
    }));

  it("POST network-restrictions/apply with every network (restrictions removed)", () =>
    world.operation("remove network restrictions", async () => {
      answered(await call("POST", p("/network-restrictions/apply"), { dbAllowedCidrs: ["0.0.0.0/0"], dbAllowedCidrsV6: ["::/0"] }), 201, "open");
      expect(hbaText(world.cluster)).toBe(world.watch.hbaBaseline);
      expect(await ownerLogin()).toBe("ok");
    }));

  it("refuses a network that is not a CIDR (a pg_hba.conf rule in disguise), changing nothing", async () => {
    try {
      await world.operation("apply a network with a rule in it", async () => {
        const r = await call("POST", p("/network-restrictions/apply"), { dbAllowedCidrs: ["10.0.0.0/8 trust\nhost all all 0.0.0.0/0 trust\n#"], dbAllowedCidrsV6: [] });
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(hbaText(world.cluster)).toBe(world.watch.hbaBaseline);
      });
    } finally {
      // Put back by hand: through the API the traps would run again, outside any operation.
      writeFileSync(join(world.cluster.dataDir, "pg_hba.conf"), world.watch.hbaBaseline);
      await world.admin()("select pg_reload_conf()");
      await adminQuery(world.platform.platformUrl, "delete from platform.network_restrictions where ref = $1", [ref]);
    }
  });
});

describe("credentials", () => {
  it("PATCH database/password", () =>
    world.operation("PATCH database/password", async () => {
      const old = world.attacker.password;
      const next = "reads-attacker-new-password";
      answered(await call("PATCH", p("/database/password"), { password: next }), 200, "password change");
      world.attacker.password = next;
      expect(await ownerLogin()).toBe("ok");
      expect(await tcpLogin(world.attacker.owner, old)).toMatch(/password authentication failed/);
    }));

  let cliRole: { role: string; password: string };

  it("POST cli/login-role", () =>
    world.operation("POST cli/login-role", async () => {
      cliRole = answered(await call("POST", p("/cli/login-role"), { read_only: false }), 201, "login role").body;
      const client = new pg.Client({ host: world.cluster.tcpHost, port: world.cluster.port, database: ref, user: cliRole.role, password: cliRole.password, options: pinned });
      client.on("error", () => {});
      await client.connect();
      try {
        expect((await client.query("select current_user as who")).rows).toEqual([{ who: world.attacker.owner }]);
        // Made as the login role itself, so the delete has something to hand back to the owner.
        await client.query("reset role; create table public.cli_owned (id int)");
      } finally {
        await client.end();
      }
    }));

  it("DELETE cli/login-role", () =>
    world.operation("DELETE cli/login-role", async () => {
      answered(await call("DELETE", p("/cli/login-role")), 200, "login role delete");
      expect(await world.admin()("select rolname from pg_roles where rolname = $1", [cliRole.role])).toEqual([]);
      expect(await admin("select tableowner from pg_tables where tablename = 'cli_owned'")).toEqual([{ tableowner: world.attacker.owner }]);
    }));

  let me: string;
  let jitLogin: string;

  it("PUT database/jit (grant)", () =>
    world.operation("PUT database/jit", async () => {
      me = answered(await call("GET", `/v1/organizations/${world.attacker.slug}/members`), 200, "members").body[0].user_id;
      answered(await call("PUT", p("/jit-access"), { state: "enabled" }), 200, "jit enable");
      const grant = { role: "postgres", expires_at: Math.floor(Date.now() / 1000) + 3600, allowed_networks: { allowed_cidrs: [{ cidr: "127.0.0.0/8" }] } };
      const r = answered(await call("PUT", p("/database/jit"), { user_id: me, roles: [grant] }), 200, "jit grant");
      expect(r.body.user_roles).toHaveLength(1);
    }));

  it("POST database/jit (authorize)", () =>
    world.operation("POST database/jit", async () => {
      answered(await call("POST", p("/database/jit"), { role: "postgres", rhost: "127.0.0.1" }), 200, "jit authorize");
      jitLogin = `${ref}_jit_${me.replace(/-/g, "").slice(0, 16)}`;
      expect(await tcpLogin(jitLogin, world.attacker.token)).toBe("ok");
      const [row] = await world.admin()("select pg_has_role($1, $2, 'member') as m", [jitLogin, world.attacker.owner]);
      expect(row.m).toBe(true);
    }));

  it("DELETE database/jit/{user_id} (revoke)", () =>
    world.operation("DELETE database/jit", async () => {
      answered(await call("DELETE", p(`/database/jit/${me}`)), 200, "jit revoke");
      expect(await world.admin()("select rolname from pg_roles where rolname = $1", [jitLogin])).toEqual([]);
    }));
});

describe("extensions", () => {
  it("POST database/webhooks/enable", () =>
    world.operation("POST webhooks/enable", async () => {
      const available = (await world.admin()("select 1 from pg_available_extensions where name = 'pg_net'")).length > 0;
      const r = await call("POST", p("/database/webhooks/enable"));
      if (available) {
        expect(r.status).toBe(201);
        expect(await admin("select extname from pg_extension where extname = 'pg_net'")).toHaveLength(1);
      } else {
        expect(r.status).toBe(400);
        expect(r.body.message).toContain("pg_net");
      }
    }));

  it("GET upgrade/eligibility", () =>
    world.operation("GET upgrade eligibility", async () => {
      const [{ v }] = await admin("select extversion as v from pg_extension where extname = 'pg_graphql'");
      const r = answered(await call("GET", p("/upgrade/eligibility")), 200, "eligibility");
      expect(r.body.current_app_version).toBe(`postgres-15/pg_graphql-${v}`);
    }));

  it("POST upgrade (pg_graphql)", () =>
    world.operation("POST upgrade", async () => {
      const oid = async () => (await admin("select oid::int as oid from pg_extension where extname = 'pg_graphql'"))[0]?.oid;
      const before = await oid();
      const started = answered(await call("POST", p("/upgrade"), { target_version: "15" }), 201, "upgrade");
      const status = answered(await call("GET", p(`/upgrade/status?tracking_id=${started.body.tracking_id}`)), 200, "upgrade status");
      expect(status.body.databaseUpgradeStatus).toMatchObject({ status: 2, progress: "9_completed_upgrade" });
      expect(await oid()).not.toBe(before);
    }));
});

describe("lifecycle", () => {
  it("POST pause", () =>
    world.operation("POST pause", async () => {
      answered(await call("POST", p("/pause")), 200, "pause");
      expect((await call("GET", p(""))).body.status).toBe("INACTIVE");
      expect(await ownerLogin()).toMatch(/not currently accepting connections/);
    }));

  it("POST restore", () =>
    world.operation("POST restore", async () => {
      answered(await call("POST", p("/restore")), 200, "restore");
      expect((await call("GET", p(""))).body.status).toBe("ACTIVE_HEALTHY");
      expect(await ownerLogin()).toBe("ok");
    }));

  it("claims the project into another organization", () =>
    world.operation("project claim", async () => {
      const target = answered(await call("POST", "/v1/organizations", { name: "reads attacker second org" }), 201, "org").body.slug as string;
      const token = answered(await call("POST", p("/claim-token")), 200, "claim token").body.token as string;
      answered(await call("POST", `/v1/organizations/${target}/project-claim/${token}`), 204, "claim");
      const project = answered(await call("GET", p("")), 200, "project").body;
      expect(project.organization_id ?? project.organization_slug).toBe(target);
      expect(await ownerLogin()).toBe("ok");
    }));

  it("leaves the victim's project as it was", () =>
    world.operation("the victim's check", async () => {
      expect(await world.asTenant(world.victim)("select entry from public.diary order by id")).toEqual([{ entry: "victim-secret-1" }, { entry: "victim-secret-2" }]);
      expect(await world.admin()("select rolname from pg_roles where rolsuper order by rolname")).toEqual([{ rolname: "postgres" }]);
    }));

  it("DELETE the project", () =>
    world.operation("DELETE project", async () => {
      answered(await call("DELETE", p("")), 200, "delete");
      expect(await world.admin()("select datname from pg_database where datname = $1", [ref])).toEqual([]);
      const own = ["owner", "authenticator", "login", "readonly"].map((r) => `${ref}_${r}`);
      expect(await world.admin()("select rolname from pg_roles where rolname = any($1)", [own])).toEqual([]);
    }));
});

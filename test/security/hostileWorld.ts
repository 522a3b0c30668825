// Test support (hostile tenant): a platform whose projects live on a server of their own (TCP on
// 127.0.0.1 with scram-sha-256 and SSL, its pg_hba.conf writable by the platform), hosting an
// attacker's project, planted with every trap of hostileTraps.ts through nothing but its owner
// role and its database password, and a victim's project of another user.
import pg from "pg";
import { stopCluster } from "../harness/cluster";
import { startTcpCluster, type TcpCluster } from "../harness/tcpCluster";
import { api, clusterUrl, startPlatform, type ApiResponse, type TestPlatform } from "../management/support";
import { hbaText, roleSnapshot, testAdminName, watched, type Watch } from "./evidence";
import {
  betterMatchesSql,
  databaseSettingsSql,
  evilSchemaSql,
  hostileMigrations,
  seedObjectsSql,
  trapFunctionsSql,
  trappedDataSql,
  writableSql,
} from "./hostileTraps";

/** Settings every session this suite opens itself starts with, whatever the database says. */
export const pinned = "-c search_path=pg_catalog -c statement_timeout=0 -c default_transaction_read_only=off";

/** The schema the attacker puts first on its database's search path. */
export const evilSchema = "hostile_path";

export interface Tenant {
  email: string;
  token: string;
  slug: string;
  ref: string;
  owner: string;
  /** The database password, as the tenant knows it (changed by the password test). */
  password: string;
  call(method: string, path: string, body?: unknown): Promise<ApiResponse>;
}

type Rows = <R = any>(text: string, params?: unknown[]) => Promise<R[]>;

export interface HostileWorld {
  cluster: TcpCluster;
  platform: TestPlatform;
  attacker: Tenant;
  victim: Tenant;
  watch: Watch;
  /** SQL as the cluster's superuser in `database` (the maintenance database by default). */
  admin(database?: string): Rows;
  /** SQL in `database` as a role that reads everything and is no superuser: how a test checks
   * what an operation left in a tenant's objects without itself falling into their traps. */
  reader(database: string): Rows;
  /** SQL as the tenant's owner role over TCP with its password (what the tenant itself has). */
  asTenant(tenant: Tenant, database?: string): Rows;
  /** A client of the tenant's own, over TCP with its password (ended by the caller). */
  tenantClient(tenant: Tenant, database?: string): Promise<pg.Client>;
  /** Runs `work` with the tenant's own read-only default lifted: operations that write as the
   * tenant's own login honour it (hosted read-only mode stops migrations too). */
  writable<T>(work: () => Promise<T>): Promise<T>;
  /** Gives the attacker's database its hostile settings again (after a restore made it anew). */
  plantSettings(): Promise<void>;
  /** One operation, judged by evidence.ts `watched`. */
  operation(what: string, work: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

async function run(config: pg.ClientConfig, text: string, params: unknown[] = []): Promise<any[]> {
  const client = new pg.Client(config);
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A user with an organization and a project of its own, made through the API. */
export async function makeTenant(platform: Pick<TestPlatform, "baseUrl" | "token">, email: string, name: string): Promise<Tenant> {
  const token = await platform.token(email);
  const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
  const slug = (await call("POST", "/v1/organizations", { name: `${name} org` })).body.slug as string;
  const password = `${name}-database-password`;
  const created = await call("POST", "/v1/projects", { name, organization_slug: slug, region: "eu-west-1", db_pass: password });
  if (created.status !== 201) throw new Error(`project create answered ${created.status}: ${JSON.stringify(created.body)}`);
  const ref = created.body.ref as string;
  return { email, token, slug, ref, owner: `${ref}_owner`, password, call };
}

/** Throws with the answer unless it has `status`. */
export function answered(r: ApiResponse, status: number, what: string): ApiResponse {
  if (r.status !== status) throw new Error(`${what} answered ${r.status} (expected ${status}): ${JSON.stringify(r.body)}`);
  return r;
}

/** The role test checks read tenant objects as (see `reader`). */
const checker = "hostile_checker";

export async function hostileWorld(name: string, options: { router?: boolean } = {}): Promise<HostileWorld> {
  // Connections are logged, so evidence.ts can tell every superuser login into a project database.
  const cluster = await startTcpCluster({ log_connections: "on" });
  let platform: TestPlatform | undefined;
  try {
    platform = await startPlatform({ projectServers: [clusterUrl(cluster)], banAfterFailures: 0, ...(options.router ? { databaseRouterPort: 0 } : {}) });
    const attacker = await makeTenant(platform, `${name}-attacker@example.com`, `${name}-attacker`);
    const victim = await makeTenant(platform, `${name}-victim@example.com`, `${name}-victim`);
    const admin = (database = "postgres"): Rows =>
      (text, params) => run({ connectionString: clusterUrl(cluster, database), options: pinned, application_name: testAdminName }, text, params);
    await admin()(`create role ${checker} login in role pg_read_all_data`);
    const reader = (database: string): Rows => async (text, params) => {
      await admin()(`grant connect on database "${database}" to ${checker}`);
      return run({ connectionString: clusterUrl(cluster, database, checker), options: pinned }, text, params);
    };
    const tenantConfig = (tenant: Tenant, database = tenant.ref): pg.ClientConfig => ({
      host: cluster.tcpHost,
      port: cluster.port,
      user: tenant.owner,
      password: tenant.password,
      database,
      options: pinned,
    });
    const asTenant = (tenant: Tenant, database?: string): Rows => (text, params) => run(tenantConfig(tenant, database), text, params);
    const tenantClient = async (tenant: Tenant, database?: string) => {
      const client = new pg.Client(tenantConfig(tenant, database));
      client.on("error", () => {});
      await client.connect();
      return client;
    };
    const psql = `${cluster.bindir}/psql -X -q -h ${cluster.host} -p ${cluster.port} -U postgres -d postgres`;
    const target = { owner: attacker.owner, markFolder: cluster.host, psql };
    const plant = asTenant(attacker);
    await plant(trapFunctionsSql(target));
    for (const schema of ["public", "postgres", `${attacker.ref}_login`, `${attacker.ref}_readonly`, attacker.owner, `${attacker.ref}_authenticator`]) {
      await plant(betterMatchesSql(schema));
    }
    await plant(evilSchemaSql(evilSchema));
    await plant(seedObjectsSql);
    await plant(trappedDataSql);
    for (const m of hostileMigrations(target)) answered(await attacker.call("PUT", `/v1/projects/${attacker.ref}/database/migrations`, m), 200, "recording a migration");
    await plant(
      "create trigger history_trap before insert or update on supabase_migrations.schema_migrations for each row execute function hostile.trap_trigger()",
    );
    const plantSettings = async () => void (await plant(databaseSettingsSql(attacker.ref, evilSchema)));
    await plantSettings();
    await asTenant(victim)(
      "create table public.diary (id int primary key, entry text not null); insert into public.diary values (1, 'victim-secret-1'), (2, 'victim-secret-2')",
    );
    const watch: Watch = {
      cluster,
      admin: admin(),
      hbaBaseline: hbaText(cluster),
      database: attacker.ref,
      givenCidrs: new Set(),
      baselineRoles: await roleSnapshot(admin()),
    };
    const started = platform;
    return {
      cluster,
      platform: started,
      attacker,
      victim,
      watch,
      admin,
      reader,
      asTenant,
      tenantClient,
      async writable(work) {
        await plant(writableSql(attacker.ref, true));
        try {
          return await work();
        } finally {
          await plant(writableSql(attacker.ref, false));
        }
      },
      plantSettings,
      operation: (what, work) => watched(watch, what, work),
      async close() {
        try {
          for (const t of [attacker, victim]) await t.call("DELETE", `/v1/projects/${t.ref}`).catch(() => {});
          await started.close();
        } finally {
          stopCluster(cluster);
        }
      },
    };
  } catch (e) {
    await platform?.close().catch(() => {});
    stopCluster(cluster);
    throw e;
  }
}

/** Polls `check` until it holds; fails after `tries` polls (a bound, not a timing assertion). */
export async function until(what: string, check: () => Promise<boolean>, tries = 1200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}

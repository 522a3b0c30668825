// Read replicas with a real streaming standby (pg_basebackup -R): queries go to the standby and
// mutations to the primary, decided from the parsed operation; a lagging or stopped standby is
// skipped for the primary. The primary starts without plv8 preloaded, so `setup --preload-plv8`
// is shown appending it.
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { asServer, startCluster, stopCluster, type ClusterInfo } from "../harness/cluster";
import { startStandby } from "../harness/standby";
import { defaultSettings } from "../../server/src/config";
import { serve, type Running } from "../../server/src/serve";
import { applySetup, asAuthenticator } from "../../server/src/setup";
import { post, secret, until } from "./support";

let primary: ClusterInfo;
let standby: ClusterInfo | undefined;
let running: Running;
let preload: string;
let ready = false;

const url = (c: ClusterInfo) => `postgresql://postgres@/postgres?host=${encodeURIComponent(c.host)}&port=${c.port}`;

async function sql<R extends pg.QueryResultRow>(cluster: ClusterInfo, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url(cluster) });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}


beforeAll(async () => {
  primary = startCluster({ settings: { shared_preload_libraries: "'pg_stat_statements'" } });
  const available = await sql(primary, "select 1 from pg_available_extensions where name = 'pg_graphql'");
  if (available.length === 0) return console.warn("pg_graphql is not installed (run `make install`); skipping");
  await sql(primary, "create extension pg_graphql cascade");
  preload = await applySetup(url(primary), { demo: false, preloadPlv8: true });
  await sql(primary, `
    comment on schema public is e'@graphql({"inflect_names": true})';
    create table public.item (id serial primary key, label text not null);
    insert into public.item (label) values ('one');
    create function public.served_by() returns text language sql stable
      as $$ select case when pg_is_in_recovery() then 'replica' else 'primary' end $$;`);
  standby = startStandby(primary);
  running = await serve({
    ...defaultSettings(),
    databaseUrl: asAuthenticator(url(primary)),
    replicaUrls: [asAuthenticator(url(standby))],
    replicaMaxLagMs: 1000,
    jwtSecret: secret,
    port: 0,
    logLevel: "warn",
  });
  ready = true;
});
afterAll(async () => {
  await running?.app.close();
  if (standby) stopCluster(standby);
  stopCluster(primary);
});

async function graphql(query: string, operationName?: string) {
  const r = await post(`${running.baseUrl}/graphql/v1`, running.app.keys.serviceRole, { query, operationName });
  return r.json;
}
const servedBy = async () => (await graphql("{ servedBy }")).data?.servedBy;

it("setup appends plv8 to shared_preload_libraries and says a restart is needed", (ctx) => {
  if (!ready) ctx.skip();
  expect(preload).toBe(
    "shared_preload_libraries is now 'pg_stat_statements, plv8' (postgresql.auto.conf): restart PostgreSQL for it to take effect",
  );
});

it("sends queries to the standby and mutations to the primary, from the parsed operation", async (ctx) => {
  if (!ready) ctx.skip();
  expect(running.app.router.states()).toEqual([{ url: expect.stringContaining("authenticator@"), usable: true, reason: undefined }]);
  expect(await servedBy()).toBe("replica");
  // The word "query" in a mutation's string argument does not make it a query.
  const inserted = await graphql('mutation { insertIntoItemCollection(objects: [{label: "query { servedBy }"}]) { affectedCount } }');
  expect(inserted).toEqual({ data: { insertIntoItemCollection: { affectedCount: 1 } } });
  const both = "query Q { servedBy } mutation M { insertIntoItemCollection(objects: [{label: \"two\"}]) { affectedCount } }";
  expect(await graphql(both, "Q")).toEqual({ data: { servedBy: "replica" } });
  expect(await graphql(both, "M")).toEqual({ data: { insertIntoItemCollection: { affectedCount: 1 } } });
  // What the primary wrote reaches the standby.
  const count = async () => (await graphql("{ itemCollection { edges { node { id } } } }")).data?.itemCollection?.edges?.length;
  expect(await until(async () => (await count()) === 3)).toBe(true);
});

it("skips a lagging standby until it catches up", async (ctx) => {
  if (!ready) ctx.skip();
  await sql(standby!, "select pg_wal_replay_pause()");
  await sql(primary, "insert into public.item (label) values ('while paused')");
  const router = running.app.router;
  expect(await until(async () => (await router.check(), !router.states()[0]!.usable))).toBe(true);
  expect(router.states()[0]!.reason).toMatch(/ms behind the primary$/);
  expect(await servedBy()).toBe("primary");
  await sql(standby!, "select pg_wal_replay_resume()");
  expect(await until(async () => (await router.check(), router.states()[0]!.usable))).toBe(true);
  expect(await servedBy()).toBe("replica");
});

it("runs queries on the primary when the standby is down", async (ctx) => {
  if (!ready) ctx.skip();
  asServer(join(standby!.bindir, "pg_ctl"), ["-D", standby!.dataDir, "-m", "fast", "-w", "stop"]);
  // Whether the request or the background check notices first, the request is answered.
  expect(await servedBy()).toBe("primary");
  expect(running.app.router.states()[0]).toMatchObject({ usable: false, reason: expect.stringMatching(/^(failed a request|unreachable)/) });
  await running.app.router.check();
  expect(running.app.router.states()[0]).toMatchObject({ usable: false, reason: expect.stringMatching(/^unreachable/) });
});

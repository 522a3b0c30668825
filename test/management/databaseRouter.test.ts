// The database router of a platform server over real TCP: a `<role>.<ref>` user with the database
// `postgres` reaches the project's database as that role (node-pg and the supabase CLI's
// migration list); cancel requests reach the session; other users, unknown or paused projects
// and other projects' roles are refused.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendCancel } from "../../server/src/cancelRequest";
import { clusterInfo } from "../harness/db";
import { adminQuery, api, clusterUrl, createProject, startPlatform, type TestPlatform } from "./support";
import { supabaseCli, type SupabaseCli } from "./supabaseCliRunner";

let platform: TestPlatform;
let token: string;
let ref: string;
let other: string;
let port: number;
let cli: SupabaseCli;

async function connectAs(user: string): Promise<pg.Client> {
  const client = new pg.Client({ host: "127.0.0.1", port, user, database: "postgres", password: "a-password-1" });
  client.on("error", () => {});
  await client.connect();
  return client;
}

beforeAll(async () => {
  platform = await startPlatform({ databaseRouterPort: 0 });
  port = platform.running.routerPort!;
  token = await platform.token("router@example.com");
  ref = (await createProject(platform.baseUrl, token, "routed")).ref;
  other = (await createProject(platform.baseUrl, token, "other")).ref;
  cli = supabaseCli(platform.baseUrl, token);
});
afterAll(async () => {
  for (const r of [ref, other]) await api(platform.baseUrl, token, "DELETE", `/v1/projects/${r}`);
  await platform.close();
  cli.close();
});

describe("database router", () => {
  it("routes <role>.<ref> to the project's database as the role", async () => {
    const client = await connectAs(`${ref}_owner.${ref}`);
    try {
      const r = await client.query("select current_database() as db, current_user as who, session_user as login");
      expect(r.rows).toEqual([{ db: ref, who: `${ref}_owner`, login: `${ref}_owner` }]);
    } finally {
      await client.end();
    }
  });

  it("passes cancel requests to the session they name", async () => {
    const client = await connectAs(`${ref}_owner.${ref}`);
    try {
      const sleeping = client.query("select pg_sleep(30)").catch((e: Error & { code?: string }) => e);
      const running = "select count(*)::int as n from pg_stat_activity where datname = $1 and query = 'select pg_sleep(30)' and state = 'active'";
      while ((await adminQuery(clusterUrl(clusterInfo()), running, [ref]))[0].n === 0);
      await sendCancel(client as unknown as pg.PoolClient);
      const error = (await sleeping) as Error & { code?: string };
      expect(error.code).toBe("57014");
      expect((await client.query("select 1 as ok")).rows).toEqual([{ ok: 1 }]);
    } finally {
      await client.end();
    }
  });

  it("refuses users without a ref, unknown refs and roles of other projects or the cluster", async () => {
    const cases: [string, RegExp][] = [
      ["postgres", /must be <role>.<project ref>/],
      [`${ref}_owner`, /must be <role>.<project ref>/],
      [`${ref}_owner.${"z".repeat(20)}`, /no project "zzzzzzzzzzzzzzzzzzzz"/],
      [`postgres.${ref}`, /with a role "postgres"/],
      [`${other}_owner.${ref}`, /no project/],
    ];
    for (const [user, message] of cases) {
      await expect(connectAs(user), user).rejects.toThrow(message);
    }
    expect((await api(platform.baseUrl, token, "POST", `/v1/projects/${other}/pause`)).status).toBe(200);
    await expect(connectAs(`${other}_owner.${other}`)).rejects.toThrow(/no project/);
  });

  it("describes itself as the PRIMARY pooler entry, without pooling or the password", async () => {
    const answer = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/config/database/pooler`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-pooler")).toMatch(/does not pool/);
    const url = `postgresql://${ref}_owner.${ref}:[YOUR-PASSWORD]@127.0.0.1:${port}/postgres`;
    expect(answer.body).toEqual([
      {
        identifier: ref,
        database_type: "PRIMARY",
        is_using_scram_auth: true,
        db_user: `${ref}_owner.${ref}`,
        db_host: "127.0.0.1",
        db_port: port,
        db_name: "postgres",
        connection_string: url,
        connectionString: url,
        default_pool_size: null,
        // The router's cap on one project's sessions (--router-project-sessions, default 20).
        max_client_conn: 20,
        pool_mode: "session",
      },
    ]);
    const client = new pg.Client({ connectionString: url.replace("[YOUR-PASSWORD]", "a-password-1") });
    await client.connect();
    try {
      expect((await client.query("select current_database() as db")).rows).toEqual([{ db: ref }]);
    } finally {
      await client.end();
    }
    const patch = await api(platform.baseUrl, token, "PATCH", `/v1/projects/${ref}/config/database/pooler`, { default_pool_size: 10 });
    expect(patch.status).toBe(400);
    expect(patch.body.message).toMatch(/does not pool.*nothing was changed/);
  });

  it("answers the pgbouncer config as the router's session mode and connection string", async () => {
    const answer = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/config/database/pgbouncer`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-pooler")).toMatch(/does not pool/);
    const [entry] = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/config/database/pooler`)).body;
    expect(answer.body).toEqual({ pool_mode: "session", connection_string: entry.connection_string, max_client_conn: 20 });
    const client = new pg.Client({ connectionString: answer.body.connection_string.replace("[YOUR-PASSWORD]", "a-password-1") });
    await client.connect();
    try {
      expect((await client.query("select current_user as who")).rows).toEqual([{ who: `${ref}_owner` }]);
    } finally {
      await client.end();
    }
    const stranger = await platform.token("router-stranger@example.com");
    expect((await api(platform.baseUrl, stranger, "GET", `/v1/projects/${ref}/config/database/pgbouncer`)).status).toBe(403);
  });

  it("serves the supabase CLI's migration list through a <role>.<ref> URL", async () => {
    await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/database/migrations`, { query: "create table public.routed (id int primary key)", name: "routed" });
    const [made] = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/database/migrations`)).body as { version: string }[];
    const url = `postgresql://${ref}_owner.${ref}:a-password-1@127.0.0.1:${port}/postgres`;
    const listed = await cli.run("migration", "list", `--remote=${url}`);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(made!.version);
  });
});

// A project alone on its own server, which listens on 127.0.0.1 with scram-sha-256 logins and SSL
// on: network restrictions and SSL enforcement refuse real TCP connections of the project's role
// (and allow them again), and server-wide settings are written with ALTER SYSTEM (sighup ones
// reloaded, postmaster ones reported as waiting for a restart).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopCluster } from "../harness/cluster";
import { startTcpCluster, type TcpCluster } from "../harness/tcpCluster";
import { adminQuery, clusterUrl } from "./support";
import { settingsContext, type SettingsContext } from "./settingsSupport";

let server: TcpCluster;
let ctx: SettingsContext;
let ref: string;

beforeAll(async () => {
  server = await startTcpCluster();
  ctx = await settingsContext("tcp@example.com", "tcp", Date.now, server);
  ref = ctx.ref;
});
afterAll(async () => {
  try {
    await ctx?.close();
  } finally {
    if (server) stopCluster(server);
  }
});

function tcpClient(ssl: boolean, password = "a-password-1"): pg.Client {
  const client = new pg.Client({ host: server.tcpHost, port: server.port, database: ref, user: `${ref}_owner`, password, ssl: ssl ? { rejectUnauthorized: false } : false });
  client.on("error", () => {});
  return client;
}

/** A new TCP connection as the project's role: "ssl" or "plain" when it logs in, else PostgreSQL's refusal. */
async function tcpLogin(ssl: boolean, password?: string): Promise<string> {
  const client = tcpClient(ssl, password);
  try {
    await client.connect();
    const { rows } = await client.query("select ssl from pg_stat_ssl where pid = pg_backend_pid()");
    return rows[0].ssl ? "ssl" : "plain";
  } catch (e) {
    return (e as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

const rejected = (encryption: "no encryption" | "SSL encryption") =>
  `pg_hba.conf rejects connection for host "127.0.0.1", user "${ref}_owner", database "${ref}", ${encryption}`;

describe("network restrictions on direct connections", () => {
  const path = () => `/v1/projects/${ref}/network-restrictions`;

  it("logs the project's role in over TCP with its password (scram-sha-256)", async () => {
    expect(await tcpLogin(false)).toBe("plain");
    expect(await tcpLogin(true)).toBe("ssl");
    expect(await tcpLogin(false, "wrong")).toMatch(/password authentication failed for user/);
  });

  it("refuses new TCP connections from outside the allowed networks, then allows them once 127.0.0.1 is in", async () => {
    const held = tcpClient(false);
    await held.connect();
    const applied = await ctx.call("POST", `${path()}/apply`, { dbAllowedCidrs: ["10.0.0.0/8"], dbAllowedCidrsV6: [] });
    expect(applied.status).toBe(201);
    expect(applied.headers.get("x-database-enforcement")).toBe("applied");
    expect(await tcpLogin(false)).toBe(rejected("no encryption"));
    expect(await tcpLogin(true)).toBe(rejected("SSL encryption"));
    expect((await ctx.graphql("{ __typename }")).status).toBe(403);
    // A reload reaches new connections only.
    expect((await held.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
    await held.end();

    const patched = await ctx.call("PATCH", path(), { add: { dbAllowedCidrs: ["127.0.0.1/32"] } });
    expect(patched.status).toBe(200);
    expect(await tcpLogin(false)).toBe("plain");
    expect((await ctx.graphql("{ __typename }")).status).toBe(200);
  });

  it("keeps refusing after a bad CIDR is refused, and lets everyone in once the restriction is removed", async () => {
    await ctx.call("POST", `${path()}/apply`, { dbAllowedCidrs: ["10.0.0.0/8"], dbAllowedCidrsV6: [] });
    const bad = await ctx.call("POST", `${path()}/apply`, { dbAllowedCidrs: ["127.0.0.1/8"] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/invalid cidr value/);
    expect(await tcpLogin(false)).toBe(rejected("no encryption"));
    await ctx.call("POST", `${path()}/apply`, { dbAllowedCidrs: ["0.0.0.0/0"], dbAllowedCidrsV6: ["::/0"] });
    expect(await tcpLogin(false)).toBe("plain");
  });
});

describe("SSL enforcement with SSL on", () => {
  const path = () => `/v1/projects/${ref}/ssl-enforcement`;

  it("refuses TCP connections without SSL while enforced, and takes them again once lifted", async () => {
    expect((await ctx.call("GET", path())).body).toEqual({ currentConfig: { database: false }, appliedSuccessfully: true });
    const on = await ctx.call("PUT", path(), { requestedConfig: { database: true } });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ currentConfig: { database: true }, appliedSuccessfully: true });
    expect(on.headers.get("x-database-enforcement")).toBe("applied");
    expect(await tcpLogin(false)).toBe(rejected("no encryption"));
    expect(await tcpLogin(true)).toBe("ssl");

    // Network restrictions applied later keep the SSL rule.
    await ctx.call("POST", `/v1/projects/${ref}/network-restrictions/apply`, { dbAllowedCidrs: ["127.0.0.1/32"], dbAllowedCidrsV6: [] });
    expect(await tcpLogin(false)).toBe(rejected("no encryption"));
    expect(await tcpLogin(true)).toBe("ssl");
    await ctx.call("POST", `/v1/projects/${ref}/network-restrictions/apply`, { dbAllowedCidrs: ["0.0.0.0/0"], dbAllowedCidrsV6: ["::/0"] });

    const bad = await ctx.call("PUT", path(), { requestedConfig: { database: "yes" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/database/);
    expect(await tcpLogin(false)).toBe(rejected("no encryption"));

    const off = await ctx.call("PUT", path(), { requestedConfig: { database: false } });
    expect(off.body).toEqual({ currentConfig: { database: false }, appliedSuccessfully: true });
    expect(await tcpLogin(false)).toBe("plain");
  });
});

describe("server-wide settings on a server holding only this project", () => {
  const path = () => `/v1/projects/${ref}/config/database/postgres`;
  const show = async (name: string) => (await adminQuery(clusterUrl(server, ref), `select current_setting($1) as v`, [name]))[0].v;
  const autoConf = () => readFileSync(join(server.dataDir, "postgresql.auto.conf"), "utf8");
  // ALTER SYSTEM writes a changed setting at the end: the same settings may come in another order.
  const autoConfLines = () => autoConf().split("\n").sort();

  it("reloads a sighup setting set with ALTER SYSTEM: a new session sees it", async () => {
    const put = await ctx.call("PUT", path(), { checkpoint_timeout: "10min", work_mem: "3MB" });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ checkpoint_timeout: "10min", work_mem: "3MB" });
    expect(put.headers.get("x-restart-database")).toBeNull();
    expect(await show("checkpoint_timeout")).toBe("10min");
    expect(await show("work_mem")).toBe("3MB");
    expect(autoConf()).toMatch(/^checkpoint_timeout = '10min'$/m);
    // work_mem stays the project database's own.
    expect((await adminQuery(clusterUrl(server), "select current_setting('work_mem') as v"))[0].v).not.toBe("3MB");
  });

  it("writes a postmaster setting for the next start and says a restart is needed", async () => {
    const running = (await ctx.call("GET", path())).body.max_connections;
    const put = await ctx.call("PUT", path(), { max_connections: running + 10, restart_database: true });
    expect(put.status).toBe(200);
    expect(put.body.max_connections).toBe(running);
    expect(put.headers.get("x-restart-database")).toMatch(/^required: max_connections take effect when PostgreSQL restarts; restart_database was asked/);
    const [row] = await adminQuery(clusterUrl(server), "select pending_restart from pg_settings where name = 'max_connections'");
    expect(row.pending_restart).toBe(true);
    expect(autoConf()).toMatch(new RegExp(`^max_connections = '${running + 10}'$`, "m"));
    expect((await ctx.call("GET", path())).headers.get("x-restart-database")).toMatch(/^required: max_connections/);
  });

  it("refuses bad values with 400 and the reason, leaving every setting and postgresql.auto.conf as they were", async () => {
    const before = (await ctx.call("GET", path())).body;
    const file = autoConfLines();
    const cases: Array<[unknown, RegExp]> = [
      [{ work_mem: "2MB", checkpoint_timeout: "5min", shared_buffers: "lots" }, /PostgreSQL refused the setting: invalid value for parameter "shared_buffers"/],
      [{ max_wal_size: "2GB", checkpoint_timeout: "1s" }, /PostgreSQL refused the setting: .*checkpoint_timeout/],
      [{ max_connections: 0 }, /max_connections/],
    ];
    for (const [body, message] of cases) {
      const r = await ctx.call("PUT", path(), body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    expect((await ctx.call("GET", path())).body).toEqual(before);
    expect(autoConfLines()).toEqual(file);
    expect(await show("checkpoint_timeout")).toBe("10min");
    expect(await show("work_mem")).toBe("3MB");
  });
});

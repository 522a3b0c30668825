// Both modes serve from the one HTTP server: the single database's data API and platform mode,
// each as the built command in a process of its own, echo the request id a client gives (or make
// one), answer /metrics, and on SIGTERM let a request held in the database answer while new ones
// are turned away, then exit 0.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asAuthenticator } from "../../server/src/setup";
import { buildPrivateBundle, startChild, type ChildServer } from "../management/childServer";
import { api, clusterUrl, createProject } from "../management/support";
import { startChildPlatform, type ChildPlatform } from "../security/childPlatform";
import { clusterInfo } from "../harness/db";
import { post, reflectsTables, secret, startTestServer, until, type TestServer } from "./support";

interface Served {
  child: ChildServer;
  baseUrl: string;
  /** Paths answered (whatever the status) by this mode's server, with their headers. */
  requests: Array<{ path: string; method?: string; headers?: Record<string, string>; body?: string }>;
  /** The superuser URL of the database the held request reads. */
  heldDatabaseUrl: string;
  /** A request that reads public.held and its expected answer. */
  held(): Promise<{ status: number; body: unknown }>;
  expectedHeld: { status: number; body: unknown };
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function baseOf(child: ChildServer): string {
  return child.banner.get("Health")!.replace(/\/health$/, "");
}

/** The checks every mode passes; `served` is filled by the mode's beforeAll. */
function servesAsOneServer(served: () => Served | undefined) {
  it("echoes a request id the client gives, and makes one when it gives none or a bad one", async (ctx) => {
    const s = served();
    if (!s) return ctx.skip();
    for (const request of s.requests) {
      const call = (id?: string) =>
        fetch(`${s.baseUrl}${request.path}`, {
          method: request.method ?? "GET",
          headers: { ...request.headers, ...(id === undefined ? {} : { "x-request-id": id }) },
          ...(request.body === undefined ? {} : { body: request.body }),
        });
      const given = await call("req-abc-123");
      expect(given.headers.get("x-request-id"), request.path).toBe("req-abc-123");
      const made = await call();
      expect(made.headers.get("x-request-id"), request.path).toMatch(uuid);
      const bad = await call("not an id; drop table");
      expect(bad.headers.get("x-request-id"), request.path).toMatch(uuid);
      expect(made.headers.get("x-request-id")).not.toBe(bad.headers.get("x-request-id"));
    }
  });

  it("answers 404 with a message", async (ctx) => {
    const s = served();
    if (!s) return ctx.skip();
    const r = await fetch(`${s.baseUrl}/no/such/path?secret=x`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ message: "Not found: GET /no/such/path" });
  });

  it("serves Prometheus metrics", async (ctx) => {
    const s = served();
    if (!s) return ctx.skip();
    const r = await fetch(`${s.baseUrl}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await r.text();
    expect(text).toContain("# TYPE process_cpu_seconds_total counter");
    expect(text).toContain("# TYPE pg_graphql_http_requests_total counter");
  });

  it("drains on SIGTERM: the held request answers, new ones are turned away, then it exits 0", async (ctx) => {
    const s = served();
    if (!s) return ctx.skip();
    const admin = new pg.Client({ connectionString: s.heldDatabaseUrl });
    // A session of its own: inside the admin's transaction pg_stat_activity would not change.
    const watch = new pg.Client({ connectionString: s.heldDatabaseUrl });
    for (const c of [admin, watch]) c.on("error", () => {});
    await Promise.all([admin.connect(), watch.connect()]);
    try {
      await admin.query("begin");
      await admin.query("lock table public.held in access exclusive mode");
      let settled: { status: number; body: unknown } | undefined;
      const inflight = s.held().then((answer) => (settled = answer));
      const waiting = async () =>
        settled !== undefined ||
        (await watch.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0].n > 0;
      expect(await until(waiting, 2400)).toBe(true);
      expect(settled, "answered while the lock was held").toBeUndefined();

      const exited = new Promise<number | null>((resolve) => s.child.child.once("exit", (code) => resolve(code)));
      s.child.child.kill("SIGTERM");
      expect(await until(() => s.child.output().includes("SIGTERM: shutting down"), 2400)).toBe(true);
      // New requests get a 503 or no connection at all, while the held one still waits.
      let late: number | string = 200;
      const turnedAway = async () => {
        late = await fetch(`${s.baseUrl}/health`, { headers: { connection: "close" } }).then((r) => r.status, () => "refused");
        return late !== 200;
      };
      expect(await until(turnedAway, 400)).toBe(true);
      expect([503, "refused"]).toContain(late);
      expect(settled).toBeUndefined();

      await admin.query("commit");
      expect(await inflight).toEqual(s.expectedHeld);
      expect(await exited).toBe(0);
      expect(s.child.output()).not.toContain("shutdown failed");
    } finally {
      await Promise.all([admin.end(), watch.end()]);
    }
  });
}

let bundle: { main: string; remove(): void } | undefined;
afterAll(() => bundle?.remove());

describe("the single database's data API", () => {
  let database: TestServer;
  let served: Served | undefined;
  beforeAll(async () => {
    // No statement timeout: the held request waits as long as the test holds the lock.
    database = await startTestServer({ schema: "create table public.held (id int primary key); insert into public.held values (1);" });
    if (!(await reflectsTables(database, "heldCollection"))) return;
    bundle = await buildPrivateBundle();
    const child = await startChild(bundle.main, ["start", "--port", "0", "--log-level", "warn", "--statement-timeout", "0"], { DATABASE_URL: asAuthenticator(database.db.url), JWT_SECRET: secret });
    const baseUrl = baseOf(child);
    const anon = child.banner.get("anon key")!;
    served = {
      child,
      baseUrl,
      requests: [
        { path: "/health" },
        { path: "/graphql/v1", method: "POST", headers: { apikey: anon, "content-type": "application/json" }, body: JSON.stringify({ query: "{ __typename }" }) },
        { path: "/graphql/v1", method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
        { path: "/nowhere" },
      ],
      heldDatabaseUrl: database.db.url,
      held: async () => {
        const r = await post(`${baseUrl}/graphql/v1`, anon, { query: "{ heldCollection { edges { node { id } } } }" });
        return { status: r.status, body: r.json };
      },
      expectedHeld: { status: 200, body: { data: { heldCollection: { edges: [{ node: { id: 1 } }] } } } },
    };
  });
  afterAll(async () => {
    await served?.child.stop();
    await database?.close();
  });
  servesAsOneServer(() => served);
});

describe("platform mode", () => {
  let platform: ChildPlatform | undefined;
  let served: Served | undefined;
  beforeAll(async () => {
    // No statement timeout: the held request waits as long as the test holds the lock.
    platform = await startChildPlatform("http_server", ["--statement-timeout", "0"]);
    const { baseUrl } = platform;
    const token = await platform.token("http@example.com");
    const { ref } = await createProject(baseUrl, token, "held");
    const made = await api(baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, {
      query: "create table public.held (id int primary key); insert into public.held values (1);",
    });
    expect(made.status).toBe(201);
    const auth = { authorization: `Bearer ${token}` };
    served = {
      child: platform.server,
      baseUrl,
      requests: [
        { path: "/health" },
        { path: "/v1/organizations", headers: auth },
        { path: "/v1/organizations" },
        { path: `/v1/projects/${ref}/database/query`, method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "select 1" },
        { path: `/project/${ref}/graphql/v1`, method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
        { path: "/dashboard/" },
        { path: "/nowhere" },
      ],
      heldDatabaseUrl: clusterUrl(clusterInfo(), ref),
      held: async () => {
        const r = await api(baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, { query: "select id from public.held" });
        return { status: r.status, body: r.body };
      },
      expectedHeld: { status: 201, body: [{ id: 1 }] },
    };
  });
  afterAll(async () => {
    await platform?.close();
  });
  servesAsOneServer(() => served);
});

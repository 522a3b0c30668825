// The server as an operator runs it: the built command with --workers 2. Workers share the port
// and each answers /metrics for all of them; logs are JSON lines with the request id the response
// echoes and no secret; SIGTERM under load lets every request already accepted answer 200.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildServer } from "../../server/build.mjs";
import { asAuthenticator } from "../../server/src/setup";
import { post, reflectsTables, secret, signToken, startTestServer, until, type TestServer } from "./support";

const root = fileURLToPath(new URL("../..", import.meta.url));
// Inside node_modules so the bundle finds its npm packages; apart from server/dist, which other
// tests build.
const outDir = join(root, "node_modules", ".cache", `pg-graphql-server-test-${process.pid}`);
const password = "hunter2-database-password";
let server: TestServer;
let child: ChildProcess;
let stdout = "";
let stderr = "";
let baseUrl = "";
let ready = false;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}


beforeAll(async () => {
  server = await startTestServer({
    schema: `
      create table public.item (id int primary key, label text);
      insert into public.item values (1, 'one');`,
  });
  if (!(await reflectsTables(server, "itemCollection"))) return;
  await buildServer(outDir);
  const port = await freePort();
  const url = asAuthenticator(server.db.url).replace("authenticator@", `authenticator:${password}@`);
  child = spawn(process.execPath, [join(outDir, "main.mjs"), "start", "--workers", "2", "--port", String(port), "--pool-size", "4"], {
    env: { ...process.env, DATABASE_URL: url, JWT_SECRET: secret, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  ready = await until(() => stdout.includes("service_role key"), 2000);
  if (!ready) throw new Error(`the server did not start:\n${stdout}\n${stderr}`);
  baseUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
  }
  rmSync(outDir, { recursive: true, force: true });
  await server.close();
});

const items = { query: "{ itemCollection { edges { node { label } } } }" };
const labels = { data: { itemCollection: { edges: [{ node: { label: "one" } }] } } };
const logLines = () => stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);

it("serves from two workers and aggregates their metrics", async (ctx) => {
  if (!ready) ctx.skip();
  expect(stdout).toContain("pg_graphql server is running (2 workers)");
  const answers = await Promise.all(Array.from({ length: 40 }, () => post(`${baseUrl}/graphql/v1`, server.anonKey, items)));
  for (const answer of answers) expect(answer).toEqual({ status: 200, json: labels });
  const pids = new Set(logLines().filter((l) => l.msg === "request completed").map((l) => l.pid));
  expect(pids.size).toBe(2);

  // Whichever worker answers /metrics, it counts the requests of both.
  for (let i = 0; i < 4; i++) {
    const text = await (await fetch(`${baseUrl}/metrics`, { headers: { connection: "close" } })).text();
    expect(text).toContain('pg_graphql_http_requests_total{status="200",operation="query"} 40');
    expect(text).toMatch(/pg_graphql_pool_connections\{pool="primary",state="idle"\} \d+/);
    expect(text).toContain("pg_graphql_http_request_duration_seconds_bucket");
  }
});

it("logs JSON lines with the request id it echoes, and no secret", async (ctx) => {
  if (!ready) ctx.skip();
  const token = await signToken({ role: "authenticated", sub: "u1" });
  const marker = "s3cret-variable-value";
  const response = await fetch(`${baseUrl}/graphql/v1`, {
    method: "POST",
    headers: { "content-type": "application/json", apikey: server.anonKey, authorization: `Bearer ${token}`, "x-request-id": "req-abc-123" },
    body: JSON.stringify({ query: "query($x: String) { __typename }", variables: { x: marker } }),
  });
  expect(response.headers.get("x-request-id")).toBe("req-abc-123");
  const search = new URLSearchParams({ query: "query($x: String) { __typename }", variables: JSON.stringify({ x: marker }) });
  const viaGet = await fetch(`${baseUrl}/graphql/v1?${search}`, { headers: { apikey: server.anonKey } });
  expect(viaGet.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(await until(() => logLines().some((l) => l.reqId === viaGet.headers.get("x-request-id") && l.msg === "request completed"))).toBe(true);
  expect(logLines().filter((l) => l.reqId === "req-abc-123").map((l) => l.msg)).toEqual(["incoming request", "request completed"]);
  // (The banner on stdout shows the API keys, as `start` always has; the log lines never do.)
  const logs = `${JSON.stringify(logLines())}${stderr}`;
  for (const secretText of [server.anonKey, token, marker, password, secret]) expect(logs).not.toContain(secretText);
});

it("drains on SIGTERM: every request accepted before it answers 200", async (ctx) => {
  if (!ready) ctx.skip();
  const admin = await server.db.connect();
  await admin.query("begin");
  await admin.query("lock table public.item in access exclusive mode");
  // More requests than the two pools' eight connections: some wait inside the database, some
  // for a connection.
  const inflight = Array.from({ length: 30 }, () => post(`${baseUrl}/graphql/v1`, server.anonKey, items));
  const waiting = async () =>
    (await server.db.query("select count(*)::int as n from pg_stat_activity where usename = 'authenticator' and wait_event_type = 'Lock'")).rows[0].n === 8;
  // Generous waits: on a loaded machine the eight backends' first calls (the resolver loaded,
  // the schema reflected) take seconds before they reach the lock.
  expect(await until(waiting, 2400)).toBe(true);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  expect(await until(() => stderr.includes("SIGTERM: draining 2 workers"), 2400)).toBe(true);
  await admin.query("commit");
  await admin.end();
  for (const answer of await Promise.all(inflight)) expect(answer).toEqual({ status: 200, json: labels });
  expect(await exited).toBe(0);
  const late = await fetch(`${baseUrl}/health/live`).then((r) => r.status, () => "refused");
  expect(late).toBe("refused");
});

// Logs and usage over real HTTP: the requests just made to a project's data API and Management
// API appear in its edge_logs; the caller's SQL sees only its own project's rows and nothing of
// the platform; the seed's range rules; usage counts computed from the same rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, graphqlAt, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;
let otherRef: string;
/** Added to the platform's clock, to look at the same rows from later on. */
let clockOffset = 0;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const logs = (project: string, params: Record<string, string>) =>
  call("GET", `/v1/projects/${project}/analytics/endpoints/logs.all?${new URLSearchParams(params).toString()}`);

beforeAll(async () => {
  platform = await startPlatform({ now: () => Date.now() + clockOffset });
  token = await platform.token("logs@example.com");
  const slug = (await call("POST", "/v1/organizations", { name: "Logs Org" })).body.slug;
  const make = async (name: string) => (await call("POST", "/v1/projects", { name, organization_slug: slug, db_pass: "pw-logs-1", region: "us-east-1" })).body.ref as string;
  ref = await make("logged");
  otherRef = await make("other");
  const anon = (await call("GET", `/v1/projects/${ref}/api-keys`)).body[0].api_key as string;
  for (let i = 0; i < 3; i += 1) expect((await graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, anon, "{ __typename }")).status).toBe(200);
  const otherAnon = (await call("GET", `/v1/projects/${otherRef}/api-keys`)).body[0].api_key as string;
  await graphqlAt(`${platform.baseUrl}/project/${otherRef}/graphql/v1`, otherAnon, "{ __typename }");
});
afterAll(async () => {
  for (const r of [ref, otherRef]) await call("DELETE", `/v1/projects/${r}`);
  await platform.close();
});

describe("logs.all", () => {
  it("shows the requests of the last minute by default, the data API ones with their role", async () => {
    const r = await logs(ref, {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const rows = r.body.result as { event_message: string; metadata: any; timestamp: string }[];
    const graphql = rows.filter((row) => row.metadata.api === "graphql");
    expect(graphql).toHaveLength(3);
    expect(graphql[0]!.metadata).toMatchObject({ request: { method: "POST", path: `/project/${ref}/graphql/v1` }, response: { status_code: 200 }, role: "anon" });
    expect(graphql[0]!.event_message).toContain(`POST | 200 |`);
    expect(rows.some((row) => row.metadata.api === "management" && row.metadata.request.path === `/v1/projects/${ref}/api-keys`)).toBe(true);
  });

  it("leaves out, by default, the rows older than the last minute", async () => {
    // Three minutes on, the default range (the last minute, widened to whole minutes) starts after every row so far.
    clockOffset = 3 * 60_000;
    try {
      const r = await logs(ref, { sql: "select count(*)::int as n from edge_logs where metadata->>'api' = 'graphql'" });
      expect(r.body).toEqual({ result: [{ n: 0 }] });
    } finally {
      clockOffset = 0;
    }
    const now = await logs(ref, { sql: "select count(*)::int as n from edge_logs where metadata->>'api' = 'graphql'" });
    expect(now.body).toEqual({ result: [{ n: 3 }] });
  });

  it("runs the caller's SQL over that project's rows only", async () => {
    const r = await logs(ref, { sql: "select metadata->'request'->>'path' as path, count(*)::int as n from edge_logs group by 1 order by 1;" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toContainEqual({ path: `/project/${ref}/graphql/v1`, n: 3 });
    expect(JSON.stringify(r.body.result)).not.toContain(otherRef);
  });

  it("has the other hosted sources, empty", async () => {
    for (const source of ["postgres_logs", "function_logs", "auth_logs"]) {
      const r = await logs(ref, { sql: `select count(*)::int as n from ${source}` });
      expect(r.body).toEqual({ result: [{ n: 0 }] });
    }
  });

  it("cannot reach other projects' rows, platform tables, or write", async () => {
    for (const sql of [
      "select * from logs_internal.events",
      "select * from logs_internal.requests",
      "select * from logs_internal.tickets",
      "select * from platform.access_tokens",
      "select * from pg_authid",
      "select 1; delete from edge_logs",
      "select set_config('role', 'postgres', false)",
    ]) {
      const r = await logs(ref, { sql });
      expect(r.status, `${sql}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.message).toMatch(/^The logs query failed: /);
    }
    const forged = await logs(ref, { sql: `select count(*)::int as n from edge_logs, (select set_config('logs.ticket', 'forged', true)) s` });
    expect(JSON.stringify(forged.body)).not.toContain(otherRef);
    const mine = await logs(otherRef, { sql: "select distinct metadata->'request'->>'path' as path from edge_logs" });
    expect(JSON.stringify(mine.body)).not.toContain(`/project/${ref}/`);
  });

  it("refuses a range over 24 hours and unreadable timestamps with 400", async () => {
    const long = await logs(ref, { iso_timestamp_start: "2026-01-01T00:00:00Z", iso_timestamp_end: "2026-01-02T01:00:00Z" });
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/must not exceed 24 hours/);
    expect((await logs(ref, { iso_timestamp_start: "not a time" })).status).toBe(400);
  });

  it("finds nothing in an old range", async () => {
    const r = await logs(ref, { iso_timestamp_start: "2020-01-01T00:00:00Z", iso_timestamp_end: "2020-01-01T01:00:00Z" });
    expect(r.body).toEqual({ result: [] });
  });

  it("refuses another user's project", async () => {
    const stranger = await platform.token("stranger@example.com");
    expect((await api(platform.baseUrl, stranger, "GET", `/v1/projects/${ref}/analytics/endpoints/logs.all`)).status).toBe(403);
  });
});

describe("the logs source of the newer dialect", () => {
  const edgeQuery = `select id, log_attributes['identifier'] as identifier, timestamp, event_message,
      log_attributes['request.method'] as method, log_attributes['request.path'] as path, log_attributes['response.status_code'] as status_code
    from logs where source = 'edge_logs' order by timestamp desc limit 100`;

  it("answers a source's rows with their attributes as a flat map, as the newer clients query them", async () => {
    const r = await logs(ref, { sql: edgeQuery });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const rows = r.body.result as { identifier: string; method: string; path: string; status_code: number; event_message: string }[];
    const graphql = rows.filter((row) => row.path === `/project/${ref}/graphql/v1`);
    expect(graphql).toHaveLength(3);
    expect(graphql[0]).toMatchObject({ identifier: ref, method: "POST", status_code: 200 });
    expect(graphql[0]!.event_message).toContain("POST | 200 |");
    expect(JSON.stringify(rows)).not.toContain(otherRef);

    const attributes = await logs(ref, {
      sql: `select severity_text, log_attributes from logs where source = 'edge_logs' and log_attributes->>'api' = 'graphql' limit 1`,
    });
    expect(attributes.body.result).toEqual([
      {
        severity_text: "INFO",
        log_attributes: {
          identifier: ref,
          api: "graphql",
          "request.method": "POST",
          "request.path": `/project/${ref}/graphql/v1`,
          "request.host": expect.any(String),
          "request.id": expect.any(String),
          "response.status_code": 200,
          duration_ms: expect.any(Number),
          role: "anon",
        },
      },
    ]);
    const sources = await logs(ref, { sql: "select distinct source from logs" });
    expect(sources.body.result).toEqual([{ source: "edge_logs" }]);
  });

  it("keeps the project and range of the query", async () => {
    const other = await logs(otherRef, { sql: edgeQuery });
    expect(other.status).toBe(200);
    expect(JSON.stringify(other.body.result)).not.toContain(`/project/${ref}/`);
    clockOffset = 3 * 60_000;
    try {
      const later = await logs(ref, { sql: "select count(*)::int as n from logs" });
      expect(later.body).toEqual({ result: [{ n: 0 }] });
    } finally {
      clockOffset = 0;
    }
    const wide = await logs(ref, { sql: "select count(*)::int as n from logs", iso_timestamp_start: new Date(Date.now() - 86_400_000).toISOString(), iso_timestamp_end: new Date().toISOString() });
    expect(wide.body.result[0].n).toBeGreaterThan(0);
  });

  it("has workflow_run_logs, fed by a branch's action runs", async () => {
    const branch = (await call("POST", `/v1/projects/${ref}/branches`, { branch_name: "logged-branch" })).body as { project_ref: string };
    const [run] = (await call("GET", `/v1/projects/${branch.project_ref}/actions`)).body as { id: string }[];
    const text = (await call("GET", `/v1/projects/${branch.project_ref}/actions/${run!.id}/logs`)).body as string;
    const r = await logs(branch.project_ref, {
      sql: "select log_attributes['workflow_run'] as workflow_run, timestamp, id, event_message from logs where source = 'workflow_run_logs' order by timestamp",
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result.map((row: { event_message: string }) => row.event_message)).toEqual(text.split("\n"));
    expect(new Set(r.body.result.map((row: { workflow_run: string }) => row.workflow_run))).toEqual(new Set([run!.id]));
    const view = await logs(branch.project_ref, { sql: "select count(*)::int as n from workflow_run_logs" });
    expect(view.body).toEqual({ result: [{ n: text.split("\n").length }] });
    expect((await logs(ref, { sql: "select count(*)::int as n from workflow_run_logs" })).body).toEqual({ result: [{ n: 0 }] });
    expect((await call("DELETE", `/v1/branches/${branch.project_ref}`)).status).toBe(200);
  });
});

describe("usage", () => {
  it("counts the data API requests", async () => {
    const counts = await call("GET", `/v1/projects/${ref}/analytics/endpoints/usage.api-requests-count`);
    expect(counts.body).toEqual({ result: [{ count: 3 }] });
    const series = await call("GET", `/v1/projects/${ref}/analytics/endpoints/usage.api-counts?interval=15min`);
    expect(series.status).toBe(200);
    expect(series.body.result.length).toBeGreaterThanOrEqual(15);
    expect(series.body.result.reduce((n: number, b: { total_rest_requests: number }) => n + b.total_rest_requests, 0)).toBe(3);
    expect(series.body.result[0]).toMatchObject({ total_auth_requests: 0, total_storage_requests: 0 });
    expect((await call("GET", `/v1/projects/${ref}/analytics/endpoints/usage.api-counts?interval=2hr`)).status).toBe(400);
  });

  it("answers function stats for a known function only", async () => {
    const r = await call("GET", `/v1/projects/${ref}/analytics/endpoints/functions.combined-stats?interval=1hr&function_id=nope`);
    expect(r.status).toBe(404);
  });
});

// The logs database's second version: request rows move from the generic events table (metadata
// as JSON) to typed columns, and edge_logs shows the moved rows exactly as before, beside new ones
// written by the log writer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { logsMigrations } from "../../server/src/management/logs/logsSchema";
import { LogWriter } from "../../server/src/management/logs/logWriter";
import { migrate } from "../../server/src/management/platform/migrate";
import { SqlPool } from "../../server/src/management/platform/sql";

let db: TestDatabase;
let pool: SqlPool;

const oldMetadata = {
  api: "graphql",
  request: { method: "POST", path: "/project/aaaaaaaaaaaaaaaaaaaa/graphql/v1", host: "127.0.0.1:3000", id: "req-1" },
  response: { status_code: 200 },
  duration_ms: 1.25,
  role: "anon",
};
const silentLog = { warn() {}, error() {} } as never;

async function ticketed<R extends { [column: string]: unknown }>(ref: string, sql: string): Promise<R[]> {
  return pool.transaction(async (tx) => {
    await tx.rows("insert into logs_internal.tickets (id, project_ref, starts, ends) values ('t', $1, '2000-01-01', '3000-01-01')", [ref]);
    await tx.rows("select set_config('logs.ticket', 't', true)");
    const rows = await tx.rows<R>(sql);
    await tx.rows("delete from logs_internal.tickets where id = 't'");
    return rows;
  });
}

const edgeLogs = (ref: string) => ticketed<{ event_message: string; metadata: unknown }>(ref, "select event_message, metadata from logs.edge_logs order by timestamp");

beforeAll(async () => {
  db = await freshDatabase();
  pool = new SqlPool(db.url, 2);
  await migrate(pool, logsMigrations.filter((m) => m.version === 1));
  await pool.rows(
    `insert into logs_internal.events (source, project_ref, timestamp, event_message, metadata)
     values ('edge_logs', 'aaaaaaaaaaaaaaaaaaaa', '2026-01-01T00:00:00Z', 'POST | 200 | 10.1.2.3 | req-1 | /project/aaaaaaaaaaaaaaaaaaaa/graphql/v1', $1)`,
    [JSON.stringify(oldMetadata)],
  );
  expect(await migrate(pool, logsMigrations.filter((m) => m.version <= 2))).toEqual([2]);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe("logs database, version 2", () => {
  it("shows the rows written before the upgrade as they were", async () => {
    expect(await edgeLogs("aaaaaaaaaaaaaaaaaaaa")).toEqual([
      { event_message: "POST | 200 | 10.1.2.3 | req-1 | /project/aaaaaaaaaaaaaaaaaaaa/graphql/v1", metadata: oldMetadata },
    ]);
    expect(await pool.rows("select 1 from logs_internal.events where source = 'edge_logs'")).toEqual([]);
  });

  it("writes batches of requests that read back in the same shape", async () => {
    // The server writes each row's id: with the column's default gone, the rows still arrive.
    await pool.rows("alter table logs_internal.requests alter column id drop default");
    try {
      const writer = new LogWriter(pool, { intervalMs: 60_000, maxBatch: 100, maxPending: 1000, log: silentLog });
      const at = Date.parse("2026-01-02T03:04:05.678Z");
      writer.add({
        projectRef: "bbbbbbbbbbbbbbbbbbbb", timestamp: at, api: "management", method: "GET", path: "/v1/projects/bbbbbbbbbbbbbbbbbbbb/api-keys",
        host: "localhost", requestId: "req-2", clientIp: "::1", statusCode: 404, durationMs: 0.5, role: null,
      });
      writer.add({
        projectRef: "bbbbbbbbbbbbbbbbbbbb", timestamp: at + 1, api: "graphql", method: "POST", path: "/graphql/v1",
        host: "bbbbbbbbbbbbbbbbbbbb.example.com", requestId: "req-\"3\"\\\t\n", clientIp: "127.0.0.1", statusCode: 200, durationMs: 2, role: "service_role",
      });
      await writer.close();
    } finally {
      await pool.rows("alter table logs_internal.requests alter column id set default gen_random_uuid()");
    }
    expect(await edgeLogs("bbbbbbbbbbbbbbbbbbbb")).toEqual([
      {
        event_message: "GET | 404 | ::1 | req-2 | /v1/projects/bbbbbbbbbbbbbbbbbbbb/api-keys",
        metadata: { api: "management", request: { method: "GET", path: "/v1/projects/bbbbbbbbbbbbbbbbbbbb/api-keys", host: "localhost", id: "req-2" }, response: { status_code: 404 }, duration_ms: 0.5, role: null },
      },
      {
        event_message: 'POST | 200 | 127.0.0.1 | req-"3"\\\t\n | /graphql/v1',
        metadata: { api: "graphql", request: { method: "POST", path: "/graphql/v1", host: "bbbbbbbbbbbbbbbbbbbb.example.com", id: 'req-"3"\\\t\n' }, response: { status_code: 200 }, duration_ms: 2, role: "service_role" },
      },
    ]);
    const [{ timestamp }] = await pool.rows<{ timestamp: Date }>("select timestamp from logs_internal.requests where request_id = 'req-2'");
    expect(timestamp.toISOString()).toBe("2026-01-02T03:04:05.678Z");
    // Each row has an id of its own.
    const ids = await pool.rows<{ id: string }>("select id::text from logs_internal.requests where project_ref = 'bbbbbbbbbbbbbbbbbbbb'");
    expect(ids).toHaveLength(2);
    expect(new Set(ids.map((r) => r.id)).size).toBe(2);
    for (const { id } of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("logs database, version 3", () => {
  it("shows every source's rows in one logs view, attributes as a flat map", async () => {
    expect(await migrate(pool, logsMigrations)).toEqual([3]);
    await pool.rows(
      `insert into logs_internal.events (source, project_ref, timestamp, event_message, metadata)
       values ('postgres_logs', 'bbbbbbbbbbbbbbbbbbbb', '2026-01-02T03:04:06Z', 'relation "x" does not exist',
               '{"parsed": {"error_severity": "error", "detail": null}, "tags": [1, 2]}')`,
    );
    const rows = await ticketed<{ source: string; severity_text: string; log_attributes: unknown; method: unknown }>(
      "bbbbbbbbbbbbbbbbbbbb",
      "select source, severity_text, log_attributes, log_attributes['request.method'] as method from logs.logs order by timestamp",
    );
    expect(rows).toEqual([
      {
        source: "edge_logs",
        severity_text: "WARN",
        method: "GET",
        log_attributes: {
          identifier: "bbbbbbbbbbbbbbbbbbbb", api: "management", "request.method": "GET", "request.path": "/v1/projects/bbbbbbbbbbbbbbbbbbbb/api-keys",
          "request.host": "localhost", "request.id": "req-2", "response.status_code": 404, duration_ms: 0.5,
        },
      },
      {
        source: "edge_logs",
        severity_text: "INFO",
        method: "POST",
        log_attributes: {
          identifier: "bbbbbbbbbbbbbbbbbbbb", api: "graphql", "request.method": "POST", "request.path": "/graphql/v1",
          "request.host": "bbbbbbbbbbbbbbbbbbbb.example.com", "request.id": 'req-"3"\\\t\n', "response.status_code": 200, duration_ms: 2, role: "service_role",
        },
      },
      { source: "postgres_logs", severity_text: "ERROR", method: null, log_attributes: { identifier: "bbbbbbbbbbbbbbbbbbbb", "parsed.error_severity": "error", tags: [1, 2] } },
    ]);
    expect(await ticketed("aaaaaaaaaaaaaaaaaaaa", "select source from logs.logs")).toEqual([{ source: "edge_logs" }]);
  });
});

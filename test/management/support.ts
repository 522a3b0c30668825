// Test support for the Management API: a platform-mode server on a loopback port whose platform
// database is a fresh one in the run's cluster, project servers defaulting to that cluster,
// tokens made by the token command, and a small HTTP client.
import { defaultSettings } from "../../server/src/config";
import pg from "pg";
import { clusterInfo } from "../harness/db";
import type { ClusterInfo } from "../harness/cluster";
import { runTokenCommand } from "../../server/src/management/cli/tokenCommand";
import { servePlatform, type PlatformRunning } from "../../server/src/management/servePlatform";
import type { ManagementPluginOptions } from "../../server/src/management/plugin";
import { dropLogsDatabase } from "../../server/src/management/logs/logsDatabase";
import type { TenantUrlPolicy } from "../../server/src/management/outbound/tenantUrls";

let counter = 0;

/** The secrets key of every test platform (32 bytes). */
export const testSecretsKey = Buffer.alloc(32, 7);

export function clusterUrl(info: ClusterInfo, database = "postgres", user = "postgres"): string {
  return `postgresql://${encodeURIComponent(user)}@/${encodeURIComponent(database)}?host=${encodeURIComponent(info.host)}&port=${info.port}`;
}

export async function adminQuery<R extends pg.QueryResultRow = any>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export interface PlatformOptions extends Pick<ManagementPluginOptions, "checkpoint" | "areas"> {
  rateLimit?: number;
  now?: () => number;
  diskQuotaBytes?: number;
  banAfterFailures?: number;
  banExemptLoopback?: boolean;
  /** The server's trusted proxies (`--trust-proxy`). */
  trustProxy?: string[];
  resolveTxt?: (name: string) => Promise<string[][]>;
  /** How tenant-given URLs are fetched; tests reaching their own servers on 127.0.0.1 pass `local`. */
  tenantUrls?: TenantUrlPolicy;
  projectServers?: string[];
  /** Reuse this platform database (a second server process over the same state). */
  platformDatabase?: string;
  logLevel?: string;
  /** The server's statement timeout (also the SQL endpoints'). */
  statementTimeoutMs?: number;
  /** Runs the database router on this port (0: any free one). */
  databaseRouterPort?: number;
  /** Data API connections the project servers give this server (its connection budget). */
  dataApiConnections?: number;
  /** Idle data API connections close after this many ms. */
  poolIdleTimeoutMs?: number;
  /** How long a stop waits for requests in flight. */
  drainMs?: number;
}

export interface TestPlatform {
  running: PlatformRunning;
  baseUrl: string;
  platformUrl: string;
  platformDatabase: string;
  token(email: string): Promise<string>;
  /** Stops the server and drops the platform database (project databases are the tests' own). */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

export async function startPlatform(options: PlatformOptions = {}): Promise<TestPlatform> {
  const info = clusterInfo();
  counter += 1;
  const platformDatabase = options.platformDatabase ?? `platform_${process.pid}_${counter}`;
  const platformUrl = clusterUrl(info, platformDatabase);
  const running = await servePlatform(
    {
      ...defaultSettings(),
      ...(options.statementTimeoutMs !== undefined ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
      host: "127.0.0.1",
      port: 0,
      poolSize: 2,
      bodyLimit: 1024 * 1024,
      corsOrigins: "*",
      schemas: ["public"],
      logLevel: options.logLevel ?? "warn",
      ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
      management: {
        platformDatabaseUrl: platformUrl,
        projectServers: options.projectServers ?? [clusterUrl(info)],
        rateLimit: options.rateLimit ?? 1000,
        now: options.now ?? Date.now,
        ...(options.databaseRouterPort !== undefined ? { databaseRouterPort: options.databaseRouterPort } : {}),
        ...(options.dataApiConnections !== undefined ? { dataApiConnections: options.dataApiConnections } : {}),
        ...(options.poolIdleTimeoutMs !== undefined ? { poolIdleTimeoutMs: options.poolIdleTimeoutMs } : {}),
        secretsKey: testSecretsKey,
        ...(options.diskQuotaBytes !== undefined ? { diskQuotaBytes: options.diskQuotaBytes } : {}),
        ...(options.banAfterFailures !== undefined ? { banAfterFailures: options.banAfterFailures } : {}),
        ...(options.banExemptLoopback ? { banExemptLoopback: true } : {}),
        ...(options.resolveTxt ? { resolveTxt: options.resolveTxt } : {}),
        ...(options.tenantUrls ? { tenantUrls: options.tenantUrls } : {}),
      },
    },
    {
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
      ...(options.areas ? { areas: options.areas } : {}),
      ...(options.drainMs !== undefined ? { drainMs: options.drainMs } : {}),
    },
  );
  return {
    running,
    baseUrl: running.baseUrl,
    platformUrl,
    platformDatabase,
    async token(email) {
      return (await runTokenCommand(platformUrl, { kind: "create", email, name: "test" })).trim();
    },
    async close(closeOptions = {}) {
      await running.close();
      if (!closeOptions.keepDatabase) {
        await adminQuery(clusterUrl(info), `drop database if exists "${platformDatabase}" with (force)`);
        await dropLogsDatabase(clusterUrl(info), platformDatabase);
      }
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** Calls the server; `body` is sent as JSON unless it is already a string. */
export async function api(
  baseUrl: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (token !== undefined) (init.headers as Record<string, string>)["authorization"] = `Bearer ${token}`;
  if (body !== undefined) {
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the text itself is the body.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

export async function graphqlAt(url: string, apiKey: string, query: string): Promise<ApiResponse> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", apikey: apiKey }, body: JSON.stringify({ query }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) };
}

/** Databases and roles on a cluster whose names contain the ref. */
export async function tracesOf(serverUrl: string, ref: string): Promise<{ databases: string[]; roles: string[] }> {
  const databases = (await adminQuery<{ datname: string }>(serverUrl, "select datname from pg_database where datname like '%' || $1 || '%'", [ref])).map((r) => r.datname);
  const roles = (await adminQuery<{ rolname: string }>(serverUrl, "select rolname from pg_roles where rolname like '%' || $1 || '%'", [ref])).map((r) => r.rolname);
  return { databases, roles };
}

/** An organization and a project in it, made through the API by the user of `token`. */
export async function createProject(baseUrl: string, token: string, name: string): Promise<{ slug: string; ref: string }> {
  const slug = (await api(baseUrl, token, "POST", "/v1/organizations", { name: `${name} org` })).body.slug;
  const created = await api(baseUrl, token, "POST", "/v1/projects", { name, organization_slug: slug, region: "eu-west-1", db_pass: "a-password-1" });
  if (created.status !== 201) throw new Error(`project create answered ${created.status}: ${JSON.stringify(created.body)}`);
  return { slug, ref: created.body.ref };
}

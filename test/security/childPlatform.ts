// Test support (hostile tenant): the platform as a process of its own on the run's cluster, so a
// test can see whether what a tenant did ended it (an unhandled 'error' event of a client whose
// backend went away ends a Node process), with tokens and tenants made as for the in-process one.
import { runTokenCommand } from "../../server/src/management/cli/tokenCommand";
import { dropLogsDatabase } from "../../server/src/management/logs/logsDatabase";
import { clusterInfo } from "../harness/db";
import { buildPrivateBundle, startChild, type ChildServer } from "../management/childServer";
import { adminQuery, clusterUrl, graphqlAt } from "../management/support";
import type { Tenant } from "./hostileWorld";

export interface ChildPlatform {
  server: ChildServer;
  baseUrl: string;
  platformUrl: string;
  platformDatabase: string;
  token(email: string): Promise<string>;
  /** Whether the process is still running. */
  alive(): boolean;
  close(): Promise<void>;
}

let counter = 0;

/** `args`: more command-line flags (e.g. `--statement-timeout 0`); `dashboard` builds and serves
 * the dashboard too. */
export async function startChildPlatform(name: string, args: string[] = [], options: { dashboard?: boolean } = {}): Promise<ChildPlatform> {
  const info = clusterInfo();
  counter += 1;
  const platformDatabase = `${name}_${process.pid}_${counter}`;
  const platformUrl = clusterUrl(info, platformDatabase);
  const bundle = await buildPrivateBundle(options);
  let server: ChildServer;
  try {
    server = await startChild(bundle.main, ["start", "--port", "0", "--log-level", "warn", ...args], {
      PLATFORM_DATABASE_URL: platformUrl,
      PROJECT_SERVERS: clusterUrl(info),
      MGMT_RATE_LIMIT: "100000",
    }, undefined, 240_000);
  } catch (e) {
    bundle.remove();
    throw e;
  }
  return {
    server,
    baseUrl: server.banner.get("Management API")!.replace(/\/v1$/, ""),
    platformUrl,
    platformDatabase,
    async token(email) {
      return (await runTokenCommand(platformUrl, { kind: "create", email, name: "test" })).trim();
    },
    alive: () => server.child.exitCode === null && server.child.signalCode === null,
    async close() {
      await server.stop();
      bundle.remove();
      const admin = clusterUrl(info);
      const refs = await adminQuery<{ ref: string }>(platformUrl, "select ref from platform.projects").catch(() => []);
      for (const { ref } of refs) {
        await adminQuery(admin, `drop database if exists "${ref}" with (force)`);
        for (const role of ["readonly", "login", "authenticator", "owner"]) await adminQuery(admin, `drop role if exists "${ref}_${role}"`).catch(() => {});
      }
      await adminQuery(admin, `drop database if exists "${platformDatabase}" with (force)`);
      await dropLogsDatabase(admin, platformDatabase);
    },
  };
}

/** `logs.all` with the caller's SQL. */
export const logs = (tenant: Tenant, sql: string) => tenant.call("GET", `/v1/projects/${tenant.ref}/analytics/endpoints/logs.all?${new URLSearchParams({ sql }).toString()}`);

/** Requests of every kind the server answers, for `tenant`: the statuses of those that failed. */
export async function everyKindOfRequest(baseUrl: string, tenant: Tenant): Promise<Record<string, number | string>> {
  const failed: Record<string, number | string> = {};
  const attempt = async (kind: string, expected: number, request: () => Promise<{ status: number }>) => {
    try {
      const r = await request();
      if (r.status !== expected) failed[kind] = r.status;
    } catch (e) {
      failed[kind] = (e as Error).message;
    }
  };
  await attempt("management", 200, () => tenant.call("GET", `/v1/projects/${tenant.ref}`));
  await attempt("health", 200, () => fetch(`${baseUrl}/health`));
  await attempt("logs", 200, () => logs(tenant, "select count(*)::int as n from edge_logs"));
  await attempt("database/query", 201, () => tenant.call("POST", `/v1/projects/${tenant.ref}/database/query`, { query: "select 1 as one" }));
  await attempt("data API", 200, async () => {
    const anon = (await tenant.call("GET", `/v1/projects/${tenant.ref}/api-keys`)).body[0].api_key as string;
    return graphqlAt(`${baseUrl}/project/${tenant.ref}/graphql/v1`, anon, "{ __typename }");
  });
  return failed;
}

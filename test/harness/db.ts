// Test infrastructure: hands each test file a fresh database in the run's cluster.
import pg from "pg";
import { inject } from "vitest";
import type { ClusterInfo } from "./cluster";

export function clusterInfo(): ClusterInfo {
  return inject("cluster");
}

export interface TestDatabase {
  name: string;
  /** A libpq connection string for the `postgres` superuser. */
  url: string;
  connect(options?: { user?: string; options?: string }): Promise<pg.Client>;
  query<R extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  drop(): Promise<void>;
}

let counter = 0;

function connectionString(info: ClusterInfo, database: string, user = "postgres"): string {
  return `postgresql://${encodeURIComponent(user)}@/${encodeURIComponent(database)}?host=${encodeURIComponent(info.host)}&port=${info.port}`;
}

async function adminQuery(info: ClusterInfo, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: connectionString(info, "postgres") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function freshDatabase(): Promise<TestDatabase> {
  const info = clusterInfo();
  counter += 1;
  const name = `test_${process.pid}_${counter}`;
  await adminQuery(info, `create database ${name}`);
  const url = connectionString(info, name);
  let shared: pg.Client | undefined;
  const clients: pg.Client[] = [];
  const connect = async (options: { user?: string; options?: string } = {}) => {
    const client = new pg.Client({
      connectionString: connectionString(info, name, options.user),
      ...(options.options ? { options: options.options } : {}),
    });
    // An error on an idle client (e.g. its backend terminated by a test) must not crash the run.
    client.on("error", () => {});
    await client.connect();
    clients.push(client);
    return client;
  };
  return {
    name,
    url,
    connect,
    async query(sql, params) {
      shared ??= await connect();
      return shared.query(sql, params as unknown[]);
    },
    async drop() {
      await Promise.all(clients.map((c) => c.end().catch(() => {})));
      await adminQuery(info, `drop database if exists ${name} with (force)`);
    },
  };
}

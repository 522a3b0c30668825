// The data API's connection budget on a project server, over real HTTP: every project's pool
// takes room from one budget, a project without a connection takes one from the pool used least
// recently (one connection, not the pool), a request waits while every connection is busy and
// answers 503 saying why once its wait is over, and idle connections close so an idle project
// holds no backend. Work is held with a table lock the test takes and releases; loops that wait
// for the server end on the test's own timeout, and no duration is asserted.
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { api, clusterUrl, createProject, startPlatform, type TestPlatform } from "./support";

const list = "{ itemCollection(first: 2) { edges { node { id } } } }";

interface Project {
  ref: string;
  key: string;
}

async function makeProjects(platform: TestPlatform, token: string, count: number): Promise<Project[]> {
  const made: Project[] = [];
  for (let i = 0; i < count; i++) {
    const { ref } = await createProject(platform.baseUrl, token, `budget-${i}`);
    const seeded = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/database/query`, {
      query: "create table item (id int primary key); insert into item values (1), (2), (3); grant select on item to anon",
    });
    expect(seeded.status).toBe(201);
    const keys = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys?reveal=true`);
    made.push({ ref, key: (keys.body as { name: string; api_key: string }[]).find((k) => k.name === "anon")!.api_key });
  }
  return made;
}

function read(platform: TestPlatform, project: Project): Promise<{ status: number; headers: Headers; body: any }> {
  return fetch(`${platform.baseUrl}/project/${project.ref}/graphql/v1`, {
    method: "POST",
    headers: { "content-type": "application/json", apikey: project.key },
    body: JSON.stringify({ query: list }),
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }));
}

/** Data API backends (the server's pools) connected to these projects' databases. */
async function dataApiBackends(projects: Project[]): Promise<number> {
  const client = new pg.Client({ connectionString: clusterUrl(clusterInfo()) });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where application_name = 'pg_graphql_server' and datname = any($1::text[])",
      [projects.map((p) => p.ref)],
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

/** A superuser session in the project's database holding `item` locked until `release`. */
async function lockItems(project: Project): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: clusterUrl(clusterInfo(), project.ref) });
  client.on("error", () => {});
  await client.connect();
  await client.query("begin");
  await client.query("lock table item in access exclusive mode");
  return {
    async release() {
      await client.query("rollback");
      await client.end();
    },
  };
}

/** Resolves once some backend of the project waits on a lock (its read is held). */
async function waitingOnLock(project: Project): Promise<void> {
  const client = new pg.Client({ connectionString: clusterUrl(clusterInfo()) });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query("select 1 from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'", [project.ref]);
      if (rows.length > 0) return;
      await sleep(50);
    }
  } finally {
    await client.end();
  }
}

describe("a budget of two connections shared by three projects", () => {
  let platform: TestPlatform;
  let projects: Project[];

  beforeAll(async () => {
    // Statements held by the test's locks must outlast a request's wait for a connection.
    platform = await startPlatform({ dataApiConnections: 2, statementTimeoutMs: 120_000 });
    projects = await makeProjects(platform, await platform.token("budget@example.com"), 3);
  });
  afterAll(async () => platform.close());

  it("the server reports the budget it works with", () => {
    const [budget] = [...platform.running.services.budgets.values()];
    expect(budget!.budget).toMatchObject({ perProcess: 2, configured: true });
  });

  it("answers every project in turn, never holding more than two backends", async () => {
    for (let round = 0; round < 3; round++) {
      for (const project of projects) {
        const answer = await read(platform, project);
        expect(answer.status).toBe(200);
        expect(answer.body.data.itemCollection.edges).toHaveLength(2);
        expect(await dataApiBackends(projects)).toBeLessThanOrEqual(2);
      }
    }
    const connections = platform.running.services.pools.serverConnections([...platform.running.services.budgets.keys()][0]!);
    expect(connections.counts).toMatchObject({ limit: 2, waiting: 0 });
    expect(connections.counts.open).toBeLessThanOrEqual(2);
  });

  it("makes a request wait while both connections are busy, and answers it once one is free", async () => {
    const [a, b, c] = projects as [Project, Project, Project];
    const lockA = await lockItems(a);
    const lockB = await lockItems(b);
    try {
      const heldA = read(platform, a);
      const heldB = read(platform, b);
      await waitingOnLock(a);
      await waitingOnLock(b);
      const waiting = read(platform, c);
      const connections = platform.running.services.pools.serverConnections([...platform.running.services.budgets.keys()][0]!);
      while (connections.counts.waiting === 0) await sleep(20);
      await lockA.release();
      expect((await heldA).status).toBe(200);
      const answered = await waiting;
      expect(answered.status).toBe(200);
      expect(answered.body.data.itemCollection.edges).toHaveLength(2);
      await lockB.release();
      expect((await heldB).status).toBe(200);
    } finally {
      await lockA.release().catch(() => {});
      await lockB.release().catch(() => {});
    }
  });

  it("answers 503 with the reason when no connection comes free within the wait, and nothing is lost", async () => {
    const [a, b, c] = projects as [Project, Project, Project];
    const lockA = await lockItems(a);
    const lockB = await lockItems(b);
    let held: Array<Promise<{ status: number }>> = [];
    try {
      held = [read(platform, a), read(platform, b)];
      await waitingOnLock(a);
      await waitingOnLock(b);
      // Both locks stay taken until the third request has its answer.
      const refused = await read(platform, c);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.body.message).toMatch(/All 2 connections .* stayed busy for \d+ ms; try again/);
    } finally {
      await lockA.release();
      await lockB.release();
    }
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await read(platform, c)).status).toBe(200);
  });
});

describe("idle connections", () => {
  let platform: TestPlatform;
  let projects: Project[];

  beforeAll(async () => {
    platform = await startPlatform({ poolIdleTimeoutMs: 300 });
    projects = await makeProjects(platform, await platform.token("idle@example.com"), 2);
  });
  afterAll(async () => platform.close());

  it("close after the idle timeout, so an idle project holds no backend, and reopen on the next request", async () => {
    await Promise.all([read(platform, projects[0]!), read(platform, projects[0]!), read(platform, projects[1]!)]);
    // Each pool opened at least one connection; once idle they all close.
    while ((await dataApiBackends(projects)) > 0) await sleep(100);
    const connections = platform.running.services.pools.serverConnections([...platform.running.services.budgets.keys()][0]!);
    expect(connections.counts.open).toBe(0);
    const again = await read(platform, projects[1]!);
    expect(again.status).toBe(200);
    expect(again.body.data.itemCollection.edges).toHaveLength(2);
  });
});

// Project upgrades over HTTP: the pg_graphql extension re-created in one transaction and tracked
// by tracking_id, a failed upgrade rolled back and reported, and a PostgreSQL major upgrade
// refused as not available.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;
let anon: string;
let projectDb: string;

const extensionOid = async () => (await adminQuery(projectDb, "select oid::int as oid from pg_extension where extname = 'pg_graphql'"))[0].oid as number;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("upgrader@example.com");
  const org = await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "Upgrades" });
  const project = await api(platform.baseUrl, token, "POST", "/v1/projects", { name: "up", organization_slug: org.body.slug, region: "us-east-1", db_pass: "up-password" });
  ref = project.body.ref;
  anon = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys`)).body[0].api_key;
  const name = (await adminQuery(platform.platformUrl, "select database_name from platform.projects where ref = $1", [ref]))[0].database_name;
  projectDb = clusterUrl(clusterInfo(), name);
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

describe("project upgrade", () => {
  it("reports eligibility from the installed and available pg_graphql versions", async () => {
    const answer = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/upgrade/eligibility`);
    expect(answer.status).toBe(200);
    const [{ installed, available }] = await adminQuery(
      projectDb,
      "select extversion as installed, (select default_version from pg_available_extensions where name = 'pg_graphql') as available from pg_extension where extname = 'pg_graphql'",
    );
    expect(answer.body.current_app_version).toBe(`postgres-15/pg_graphql-${installed}`);
    expect(answer.body.latest_app_version).toBe(`postgres-15/pg_graphql-${available}`);
    expect(answer.body.eligible).toBe(installed !== available);
  });

  it("has no status before an upgrade", async () => {
    const answer = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/upgrade/status`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ databaseUpgradeStatus: null });
  });

  it("re-creates the extension in one transaction and tracks it", async () => {
    const before = await extensionOid();
    const started = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/upgrade`, { target_version: "15" });
    expect(started.status).toBe(201);
    const status = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/upgrade/status?tracking_id=${started.body.tracking_id}`);
    expect(status.body.databaseUpgradeStatus).toMatchObject({ target_version: 15, status: 2, progress: "9_completed_upgrade" });
    expect(await extensionOid()).not.toBe(before);
    const graphql = await graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, anon, "{ __typename }");
    expect(graphql.body).toEqual({ data: { __typename: "Query" } });
  });

  it("rolls a failed upgrade back and reports it", async () => {
    await adminQuery(projectDb, "create view public.uses_graphql as select graphql.resolve('{ __typename }') as r");
    try {
      const before = await extensionOid();
      const started = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/upgrade`, { target_version: "15" });
      expect(started.status).toBe(201);
      const status = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/upgrade/status`);
      expect(status.body.databaseUpgradeStatus).toMatchObject({ status: 0, error: "8_upgrade_completion_failed" });
      expect(await extensionOid()).toBe(before);
    } finally {
      await adminQuery(projectDb, "drop view public.uses_graphql");
    }
  });

  it("refuses a PostgreSQL major upgrade, bad input and unknown tracking ids", async () => {
    const count = async () => (await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.project_upgrades"))[0].n;
    const before = await count();
    const major = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/upgrade`, { target_version: "17" });
    expect(major.status).toBe(400);
    expect(major.body.message).toContain("PostgreSQL major upgrade (15 → 17) is not available");
    expect((await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/upgrade`, {})).status).toBe(400);
    expect(await count()).toBe(before);
    const unknown = await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/upgrade/status?tracking_id=00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    const other = await platform.token("someone-else@example.com");
    expect((await api(platform.baseUrl, other, "POST", `/v1/projects/${ref}/upgrade`, { target_version: "15" })).status).toBe(403);
  });
});

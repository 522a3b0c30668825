// The platform as an operator runs it with --workers 2: the built command forks two workers that
// share the port (each its own share of the project server's connection budget), a project made
// through one is served by whichever answers, and SIGTERM ends them all.
import { afterAll, beforeAll, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { runTokenCommand } from "../../server/src/management/cli/tokenCommand";
import { dropLogsDatabase } from "../../server/src/management/logs/logsDatabase";
import { buildPrivateBundle, startChild, type ChildServer } from "./childServer";
import { adminQuery, api, clusterUrl, graphqlAt } from "./support";

const platformDatabase = `platform_workers_${process.pid}`;
let child: ChildServer;
let removeBundle: () => void;

beforeAll(async () => {
  const bundle = await buildPrivateBundle();
  removeBundle = bundle.remove;
  child = await startChild(bundle.main, ["start", "--port", "0", "--log-level", "warn", "--workers", "2"], {
    PLATFORM_DATABASE_URL: clusterUrl(clusterInfo(), platformDatabase),
    PROJECT_SERVERS: clusterUrl(clusterInfo()),
  });
});
afterAll(async () => {
  await child?.stop();
  removeBundle?.();
  await adminQuery(clusterUrl(clusterInfo()), `drop database if exists "${platformDatabase}" with (force)`);
  await dropLogsDatabase(clusterUrl(clusterInfo()), platformDatabase);
});

it("serves the platform from two workers and stops on SIGTERM", async () => {
  expect(child.output()).toContain("pg_graphql platform is running (2 workers)");
  const base = child.banner.get("Management API")!.replace(/\/v1$/, "");
  const token = (await runTokenCommand(clusterUrl(clusterInfo(), platformDatabase), { kind: "create", email: "workers@example.com", name: "test" })).trim();
  const slug = (await api(base, token, "POST", "/v1/organizations", { name: "Workers" })).body.slug;
  const made = await api(base, token, "POST", "/v1/projects", { name: "shared", organization_slug: slug, region: "eu-west-1", db_pass: "a-password-1" });
  expect(made.status).toBe(201);
  const keys = await api(base, token, "GET", `/v1/projects/${made.body.ref}/api-keys`);
  const anon = (keys.body as { name: string; api_key: string }[]).find((k) => k.name === "anon")!.api_key;
  // Several requests: the primary hands connections to both workers.
  for (let i = 0; i < 6; i++) {
    const answer = await graphqlAt(`${base}/project/${made.body.ref}/graphql/v1`, anon, "{ __typename }");
    expect(answer.body).toEqual({ data: { __typename: "Query" } });
  }
  expect((await api(base, token, "DELETE", `/v1/projects/${made.body.ref}`)).status).toBe(200);
  const exited = new Promise<number | null>((resolve) => child.child.once("exit", (code) => resolve(code)));
  child.child.kill("SIGTERM");
  expect(await exited).toBe(0);
});

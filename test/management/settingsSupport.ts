// Test support for the project settings tests: a project with its anon key, and the rows,
// schema and function the tests read through its GraphQL endpoint.
import { expect } from "vitest";
import type { ClusterInfo } from "../harness/cluster";
import { clusterInfo } from "../harness/db";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, type TestPlatform } from "./support";

export async function makeProject(on: TestPlatform, bearer: string, name: string): Promise<{ ref: string; anon: string }> {
  const org = await api(on.baseUrl, bearer, "POST", "/v1/organizations", { name: `${name} org` });
  const created = await api(on.baseUrl, bearer, "POST", "/v1/projects", { name, organization_slug: org.body.slug, region: "eu-west-1", db_pass: "a-password-1" });
  expect(created.status).toBe(201);
  const keys = await api(on.baseUrl, bearer, "GET", `/v1/projects/${created.body.ref}/api-keys`);
  return { ref: created.body.ref, anon: keys.body[0].api_key };
}

export async function seed(projectRef: string, server: ClusterInfo = clusterInfo()): Promise<void> {
  const url = clusterUrl(server, projectRef);
  await adminQuery(
    url,
    // As a tenant makes them: owned by the project's owner role.
    `set role ${projectRef}_owner;
     create table public.item (id int primary key);
     insert into public.item select generate_series(1, 5);
     grant select, insert on public.item to anon;
     create schema api;
     create table api.gadget (id int primary key);
     insert into api.gadget values (1);
     grant usage on schema api to anon;
     grant select on api.gadget to anon;
     create function public.work_mem_now() returns text language sql stable as $$ select current_setting('work_mem') $$;
     grant execute on function public.work_mem_now() to anon;`,
  );
}


/** A platform on a fake clock with one seeded project, and calls as its owner. */
export interface SettingsContext {
  platform: TestPlatform;
  token: string;
  ref: string;
  anon: string;
  call(method: string, path: string, body?: unknown): ReturnType<typeof api>;
  graphql(query: string): ReturnType<typeof graphqlAt>;
  close(): Promise<void>;
}

/** `server`: the cluster that holds the project (the run's one by default). */
export async function settingsContext(email: string, name: string, now: () => number, server: ClusterInfo = clusterInfo()): Promise<SettingsContext> {
  const platform = await startPlatform({ now, projectServers: [clusterUrl(server)] });
  const token = await platform.token(email);
  const { ref, anon } = await makeProject(platform, token, name);
  await seed(ref, server);
  const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
  return {
    platform,
    token,
    ref,
    anon,
    call,
    graphql: (query) => graphqlAt(`${platform.baseUrl}/project/${ref}/graphql/v1`, anon, query),
    async close() {
      await call("DELETE", `/v1/projects/${ref}`);
      await platform.close();
    },
  };
}

// The typed JS client `supabase-management-js` against the server: the organization and
// project calls of this part, each answer in the shape the client expects.
import { afterAll, beforeAll, expect, it } from "vitest";
import { SupabaseManagementAPI } from "supabase-management-js";
import { graphqlAt, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let client: SupabaseManagementAPI;

beforeAll(async () => {
  platform = await startPlatform();
  client = new SupabaseManagementAPI({ accessToken: await platform.token("js@example.com"), baseUrl: platform.baseUrl });
});
afterAll(async () => platform.close());

it("creates, reads, pauses, restores and deletes a project", async () => {
  const org = (await client.createAnOrganization({ name: "JS Org" })).data;
  expect((await client.listAllOrganizations()).data).toEqual([org]);
  expect((await client.getAnOrganization(org.slug)).data.name).toBe("JS Org");
  expect((await client.listOrganizationMembers(org.slug)).data).toHaveLength(1);

  const project = (await client.createAProject({ name: "js-app", organization_slug: org.slug, region: "us-west-2", db_pass: "js-password" })).data;
  expect(project).toMatchObject({ name: "js-app", region: "us-west-2", status: "ACTIVE_HEALTHY" });
  expect((await client.getProject(project.ref)).data.database.postgres_engine).toBe("15");
  expect((await client.listAllProjects()).data.map((p) => p.ref)).toEqual([project.ref]);
  expect((await client.getAllProjectsForOrganization(org.slug)).data.pagination.count).toBe(1);
  expect((await client.updateAProject(project.ref, { name: "js-renamed" })).data).toMatchObject({ ref: project.ref, name: "js-renamed" });

  const keys = (await client.getProjectApiKeys(project.ref)).data;
  const anon = keys.find((k) => k.name === "anon")!.api_key!;
  const endpoint = `${platform.baseUrl}/project/${project.ref}/graphql/v1`;
  expect((await client.pauseAProject(project.ref)).status).toBe(200);
  expect((await graphqlAt(endpoint, anon, "{ __typename }")).status).toBe(503);
  expect((await client.restoreAProject(project.ref)).status).toBe(200);
  expect((await graphqlAt(endpoint, anon, "{ __typename }")).body).toEqual({ data: { __typename: "Query" } });

  expect((await client.deleteAProject(project.ref)).data).toMatchObject({ ref: project.ref, name: "js-renamed" });
  await expect(client.getProject(project.ref)).rejects.toThrow();
});

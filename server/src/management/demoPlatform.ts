// Demo stage (Management API): a running server with the Management API → a token, a first
// organization and project made through the API itself, the demo schema loaded into that
// project's database over the API's SQL endpoint, and the lines the demo prints for them.
import { readFile } from "node:fs/promises";
import { runTokenCommand } from "./cli/tokenCommand";
import { projectSigningKey } from "./cli/jwtCommand";
import { signUserToken } from "../userToken";
import { demoSchemaSql, demoUser } from "../setup";
import { dashboardPath } from "../dashboard/dashboardRoute";

export async function demoPlatform(baseUrl: string, platformDatabaseUrl: string): Promise<Array<[string, string]>> {
  const token = (await runTokenCommand(platformDatabaseUrl, { kind: "create", email: "demo@example.com", name: "demo" })).trim();
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await response.json()) as any;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const org = await call("POST", "/v1/organizations", { name: "Demo organization" });
  const project = await call("POST", "/v1/projects", { name: "demo", organization_slug: org.slug, region: "us-east-1", db_pass: "demo-password" });
  // As a tenant would: the project's own SQL endpoint, run as the project's owner.
  await call("POST", `/v1/projects/${project.ref}/database/query`, { query: await readFile(demoSchemaSql, "utf8") });
  const keys = (await call("GET", `/v1/projects/${project.ref}/api-keys`)) as Array<{ name: string; api_key: string }>;
  const signing = await projectSigningKey(platformDatabaseUrl, project.ref);
  const userJwt = await signUserToken(signing.material, { ...demoUser, expiresInSeconds: 24 * 3600 });
  return [
    ["Management API", `${baseUrl}/v1`],
    // The fragment signs the browser in; it never reaches the server or its logs.
    ["dashboard", `${baseUrl}${dashboardPath}#token=${token}`],
    ["access token", token],
    ["organization", org.slug],
    ["project ref", project.ref],
    ["project GraphQL", `${baseUrl}/project/${project.ref}/graphql/v1`],
    ["project anon key", keys.find((k) => k.name === "anon")!.api_key],
    ["project user JWT", userJwt],
  ];
}

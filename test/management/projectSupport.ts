// Test support for a project's keys: a project made over the API with a `whoami` function in its
// database (the role and claims a request ran with), and GraphQL calls with an apiKey and an
// optional Bearer token, by path or by Host header.
import { request } from "node:http";
import { clusterInfo } from "../harness/db";
import { expect } from "vitest";
import { adminQuery, api, clusterUrl, startPlatform, type ApiResponse, type PlatformOptions, type TestPlatform } from "./support";

export interface TestProject {
  ref: string;
  anon: string;
  serviceRole: string;
  jwtSecret: string;
}

export async function createProject(platform: TestPlatform, token: string, slug: string, name: string): Promise<TestProject> {
  const created = await api(platform.baseUrl, token, "POST", "/v1/projects", { name, organization_slug: slug, region: "eu-west-1", db_pass: "a-password-1" });
  if (created.status !== 201) throw new Error(`project not created: ${JSON.stringify(created.body)}`);
  const ref = created.body.ref as string;
  await adminQuery(
    clusterUrl(clusterInfo(), ref),
    `create function public.whoami() returns text language sql stable as
       $$ select current_user || ' ' || coalesce(current_setting('request.jwt.claims', true), '') $$;
     grant execute on function public.whoami() to anon, authenticated, service_role`,
  );
  const keys = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys?reveal=true`)).body;
  const [{ jwt_secret }] = await adminQuery(platform.platformUrl, "select jwt_secret from platform.projects where ref = $1", [ref]);
  return { ref, anon: keys[0].api_key, serviceRole: keys[1].api_key, jwtSecret: jwt_secret };
}

export interface Answered {
  status: number;
  /** The role the request ran as, when it ran. */
  role?: string;
  claims?: Record<string, unknown>;
  message?: string;
}

/** `{ whoami }` at the project's endpoint on `baseUrl`. */
export async function whoami(baseUrl: string, ref: string, apiKey: string, bearer?: string): Promise<Answered> {
  const headers: Record<string, string> = { "content-type": "application/json", apikey: apiKey };
  if (bearer !== undefined) headers["authorization"] = `Bearer ${bearer}`;
  const response = await fetch(`${baseUrl}/project/${ref}/graphql/v1`, { method: "POST", headers, body: JSON.stringify({ query: "{ whoami }" }) });
  const body = (await response.json()) as { data?: { whoami: string }; message?: string };
  if (!body.data) return { status: response.status, ...(body.message !== undefined ? { message: body.message } : {}) };
  const [role, claims] = body.data.whoami.split(/ (.*)/s);
  return { status: response.status, role: role!, claims: claims ? JSON.parse(claims) : {} };
}

/** A request with a Host header (fetch does not let a caller set Host). */
export function requestWithHost(
  baseUrl: string,
  host: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: any }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers, host };
    const req = request({ hostname: url.hostname, port: url.port, path, method: options.method ?? "GET", headers }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Two server processes over one platform, a user's token and two projects of one organization. */
export interface TwoProcesses {
  platform: TestPlatform;
  second: TestPlatform;
  token: string;
  project: TestProject;
  other: TestProject;
  /** A Management API call with the token, on the first process. */
  call(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  close(): Promise<void>;
}

export async function twoProcessesWithProjects(name: string, options: PlatformOptions = {}): Promise<TwoProcesses> {
  // These tests make many refused calls on purpose: banning their address would hide the answers.
  const platform = await startPlatform({ ...options, banAfterFailures: 0 });
  const second = await startPlatform({ ...options, platformDatabase: platform.platformDatabase, banAfterFailures: 0 });
  const token = await platform.token(`${name}@example.com`);
  const slug = (await api(platform.baseUrl, token, "POST", "/v1/organizations", { name })).body.slug;
  const project = await createProject(platform, token, slug, `${name}-a`);
  const other = await createProject(platform, token, slug, `${name}-b`);
  return {
    platform,
    second,
    token,
    project,
    other,
    call: (method, path, body) => api(platform.baseUrl, token, method, path, body),
    async close() {
      await second.close({ keepDatabase: true });
      await platform.close();
    },
  };
}

/** The role a request runs as on both processes, which must agree; the status when refused. */
export async function roleOnBoth(both: TwoProcesses, ref: string, apiKey: string, bearer?: string): Promise<string | number> {
  const a = await whoami(both.platform.baseUrl, ref, apiKey, bearer);
  const b = await whoami(both.second.baseUrl, ref, apiKey, bearer);
  expect(b.status).toBe(a.status);
  return a.role ?? a.status;
}

// The `jwt` command: a user token signed with a project's JWT secret, then with its in-use
// asymmetric signing key after a rotation, which the project's data API accepts as that user;
// an unknown project is a clear error.
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseCommand } from "../../server/src/config";
import { runJwtCommand } from "../../server/src/jwtCommand";
import { createProject, whoami, type TestProject } from "./projectSupport";
import { api, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let project: TestProject;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("jwt@example.com");
  const slug = (await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "jwt org" })).body.slug;
  project = await createProject(platform, token, slug, "jwt");
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${project.ref}`);
  await platform.close();
});

async function jwtFor(args: string[]): Promise<{ token: string; notes: string }> {
  const command = parseCommand(["jwt", ...args, "--platform-database-url", platform.platformUrl], {});
  if (command.kind !== "jwt") throw new Error(`parsed as ${command.kind}`);
  let notes = "";
  const out = await runJwtCommand(command.command, (line) => (notes += line));
  return { token: out.trim(), notes };
}

it("signs with the project's JWT secret, and the data API runs the request as that user", async () => {
  const { token: user, notes } = await jwtFor(["--project", project.ref, "--sub", "5b0c7d34-0000-4000-8000-000000000001"]);
  expect(notes).toContain(`signed with project ${project.ref}'s JWT secret (HS256)`);
  expect(decodeProtectedHeader(user).alg).toBe("HS256");
  const answer = await whoami(platform.baseUrl, project.ref, project.anon, user);
  expect(answer).toMatchObject({ status: 200, role: "authenticated", claims: { sub: "5b0c7d34-0000-4000-8000-000000000001", role: "authenticated" } });
  expect((answer.claims as { exp: number; iat: number }).exp - (answer.claims as { iat: number }).iat).toBe(3600);
});

it("signs with the in-use asymmetric signing key after a rotation", async () => {
  const made = await api(platform.baseUrl, token, "POST", `/v1/projects/${project.ref}/config/auth/signing-keys`, { algorithm: "ES256", status: "in_use" });
  expect(made.status).toBe(201);
  const { token: user, notes } = await jwtFor(["--project", project.ref, "--sub", "u2", "--role", "anon", "--expires-in", "60"]);
  expect(notes).toContain(`signed with project ${project.ref}'s signing key ${made.body.id} (ES256)`);
  expect(decodeProtectedHeader(user)).toMatchObject({ alg: "ES256", kid: made.body.id });
  const answer = await whoami(platform.baseUrl, project.ref, project.anon, user);
  expect(answer).toMatchObject({ status: 200, role: "anon", claims: { sub: "u2" } });
  expect((answer.claims as { exp: number; iat: number }).exp - (answer.claims as { iat: number }).iat).toBe(60);
});

it("refuses an unknown project, a missing --sub and a bad expiry", async () => {
  await expect(jwtFor(["--project", "nosuchproject0000000", "--sub", "u"])).rejects.toThrow("no project with ref nosuchproject0000000");
  expect(() => parseCommand(["jwt", "--jwt-secret", "x".repeat(32)], {})).toThrow("jwt needs --sub");
  expect(() => parseCommand(["jwt", "--sub", "u", "--jwt-secret", "x".repeat(32), "--expires-in", "0"], {})).toThrow(/expires-in must be an integer of at least 1/);
  expect(() => parseCommand(["jwt", "--sub", "u"], {})).toThrow(/jwt needs --jwt-secret/);
});

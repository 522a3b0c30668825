// Bans at a project's data API as a person meets them: the refusal says why, until when and how
// to lift it; behind a trusted reverse proxy the forwarded client is banned, not the proxy;
// the demo's loopback exemption never bans this machine.
import { afterAll, beforeAll, expect, it } from "vitest";
import { api, createProject, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let exempt: TestPlatform;
let token: string;
let ref: string;

beforeAll(async () => {
  platform = await startPlatform({ banAfterFailures: 2, trustProxy: ["127.0.0.1"] });
  token = await platform.token("bans@example.com");
  ref = (await createProject(platform.baseUrl, token, "bans")).ref;
});
afterAll(async () => {
  await exempt?.close({ keepDatabase: true });
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

const graphql = (baseUrl: string, apiKey: string, from?: string) =>
  fetch(`${baseUrl}/project/${ref}/graphql/v1`, {
    method: "POST",
    headers: { "content-type": "application/json", apikey: apiKey, ...(from ? { "x-forwarded-for": from } : {}) },
    body: JSON.stringify({ query: "{ __typename }" }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

it("bans the forwarded client after the failures, says why and how to lift it, and lets other clients in", async () => {
  const anon = (await api(platform.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys`)).body.find((k: any) => k.name === "anon").api_key;
  for (let i = 0; i < 2; i++) expect((await graphql(platform.baseUrl, "wrong", "203.0.113.7")).status).toBe(401);
  const refused = await graphql(platform.baseUrl, anon, "203.0.113.7");
  expect(refused.status).toBe(403);
  expect(refused.body.message).toMatch(
    new RegExp(
      `^203\\.0\\.113\\.7 is banned from project ${ref} until \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z after repeated failed authentication ` +
        `\\(2 requests with a wrong apikey or token within 10 minutes\\); while banned, even a right key is refused\\. ` +
        `Lift it with DELETE /v1/projects/${ref}/network-bans \\{"ipv4_addresses": \\["203\\.0\\.113\\.7"\\]\\}$`,
    ),
  );
  // The proxy itself and another client behind it are not banned.
  expect((await graphql(platform.baseUrl, anon)).status).toBe(200);
  expect((await graphql(platform.baseUrl, anon, "203.0.113.8")).status).toBe(200);
  expect((await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/network-bans/retrieve`)).body).toEqual({ banned_ipv4_addresses: ["203.0.113.7"] });
  // The request the message names lifts it.
  expect((await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}/network-bans`, { ipv4_addresses: ["203.0.113.7"] })).status).toBe(200);
  expect((await graphql(platform.baseUrl, anon, "203.0.113.7")).status).toBe(200);
});

it("never bans loopback when the platform exempts it (the demo), and still refuses the wrong key", async () => {
  exempt = await startPlatform({ banAfterFailures: 2, banExemptLoopback: true, platformDatabase: platform.platformDatabase });
  const anon = (await api(exempt.baseUrl, token, "GET", `/v1/projects/${ref}/api-keys`)).body.find((k: any) => k.name === "anon").api_key;
  for (let i = 0; i < 4; i++) expect((await graphql(exempt.baseUrl, "wrong")).status).toBe(401);
  expect((await graphql(exempt.baseUrl, anon)).status).toBe(200);
  expect((await api(exempt.baseUrl, token, "POST", `/v1/projects/${ref}/network-bans/retrieve`)).body).toEqual({ banned_ipv4_addresses: [] });
});

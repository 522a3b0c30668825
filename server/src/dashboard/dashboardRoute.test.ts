import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { dashboardCsp, dashboardRoute } from "./dashboardRoute";

let app: FastifyInstance | undefined;
let dir: string | undefined;

async function serve(files: Record<string, string>): Promise<FastifyInstance> {
  dir = mkdtempSync(join(tmpdir(), "dashboard-assets-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  writeFileSync(join(dir, "..", `${dir.split("/").pop()}-secret.txt`), "not an asset");
  app = Fastify();
  await app.register(dashboardRoute, { assetsDir: dir });
  return app;
}

afterEach(async () => {
  await app?.close();
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}-secret.txt`, { force: true });
  }
  app = dir = undefined;
});

describe("dashboardRoute", () => {
  it("serves the page and its files under the content security policy", async () => {
    const server = await serve({ "dashboard.js": "export {};", "dashboard.css": "body{}", "chunks/GraphiqlPage-ABC.js": "export {};" });
    const page = await server.inject("/dashboard/");
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toBe(dashboardCsp);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.body).toContain('src="assets/dashboard.js"');
    const script = await server.inject("/dashboard/assets/dashboard.js");
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toMatch(/^(application|text)\/javascript/);
    expect(script.headers["cache-control"]).toBe("no-cache");
    const chunk = await server.inject("/dashboard/assets/chunks/GraphiqlPage-ABC.js");
    expect(chunk.headers["cache-control"]).toContain("immutable");
    expect((await server.inject("/dashboard")).headers["location"]).toBe("/dashboard/");
  });

  it("answers 503 saying how to build it when the files are missing", async () => {
    const server = await serve({});
    const page = await server.inject("/dashboard/");
    expect(page.statusCode).toBe(503);
    expect(page.json().message).toContain("node server/build.mjs");
  });

  it("serves nothing outside its folder, no listing, no other method", async () => {
    const server = await serve({ "dashboard.js": "export {};" });
    const name = `${dir!.split("/").pop()}-secret.txt`;
    for (const url of [`/dashboard/assets/../${name}`, `/dashboard/assets/..%2f${name}`, `/dashboard/assets/%2e%2e/${name}`, "/dashboard/assets/", "/dashboard/assets/nothing.js"]) {
      const r = await server.inject(url);
      expect([403, 404], url).toContain(r.statusCode);
      expect(r.body, url).not.toContain("not an asset");
    }
    expect((await server.inject({ method: "POST", url: "/dashboard/" })).statusCode).toBe(404);
  });
});

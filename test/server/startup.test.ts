// Start-up: the server warns loudly when it logs in as a superuser or the extension is missing,
// and setup reports whether plv8 is preloaded.
import { afterAll, beforeAll, expect, it } from "vitest";
import { serve } from "../../server/src/serve";
import { applySetup } from "../../server/src/setup";
import { startTestServer, type TestServer } from "./support";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.close());

it("starts quietly as authenticator with the extension installed", (ctx) => {
  if (!server.extension) ctx.skip();
  expect(server.running.warnings).toEqual([]);
});

it("warns that a superuser database URL should be the authenticator role", async () => {
  const asSuperuser = await serve({ ...server.running.app.config, databaseUrl: server.db.url, port: 0 });
  try {
    expect(asSuperuser.warnings).toEqual([expect.stringMatching(/logs in as the superuser "postgres".*`authenticator`/)]);
  } finally {
    await asSuperuser.app.close();
  }
});

it("says the extension is missing at start-up", async () => {
  await server.db.query("drop extension if exists pg_graphql");
  const without = await serve({ ...server.running.app.config, port: 0 });
  try {
    expect(without.warnings).toEqual([
      "not ready: pg_graphql is not installed in this database: a superuser must run `create extension pg_graphql cascade`",
    ]);
  } finally {
    await without.app.close();
  }
});

it("setup reports that the test cluster preloads plv8, and changes nothing", async () => {
  expect(await applySetup(server.db.url, { demo: false, preloadPlv8: true })).toBe("plv8 is preloaded (shared_preload_libraries)");
  expect(await applySetup(server.db.url, { demo: false })).toBe("plv8 is preloaded (shared_preload_libraries)");
});

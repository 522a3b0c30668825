// The search path setting picks the schemas the API exposes, and CORS answers only the
// configured origins when it is given a list.
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultSettings } from "../../server/src/config";
import { serve, type Running } from "../../server/src/serve";
import { asAuthenticator } from "../../server/src/setup";
import { graphql, reflectsTables, secret, startTestServer, type TestServer } from "./support";

let server: TestServer;
let publicOnly: Running;
let ready = false;

beforeAll(async () => {
  server = await startTestServer({
    schema: `
      create schema app;
      grant usage on schema app to anon, authenticated, service_role;
      create table app.gadget (id int primary key, name text);
      insert into app.gadget values (1, 'sprocket');
      grant select on app.gadget to anon, authenticated, service_role;`,
    config: { schemas: ["public", "app"], corsOrigins: ["http://allowed.test"] },
  });
  ready = await reflectsTables(server, "gadgetCollection");
  publicOnly = await serve({
    ...defaultSettings(),
    databaseUrl: asAuthenticator(server.db.url),
    host: "127.0.0.1",
    port: 0,
    jwtSecret: secret,
    poolSize: 2,
    bodyLimit: 65536,
    corsOrigins: "*",
    schemas: ["public"],
    logLevel: "warn",
  });
});
afterAll(async () => {
  await publicOnly?.app.close();
  await server.close();
});

it("exposes the tables of the configured schemas only", async (ctx) => {
  if (!ready) ctx.skip();
  const query = "{ gadgetCollection { edges { node { name } } } }";
  const exposed = await graphql(server, query);
  expect(exposed.data?.gadgetCollection.edges).toEqual([{ node: { name: "sprocket" } }]);

  const hidden = await graphql({ ...server, endpoint: `${publicOnly.baseUrl}/graphql/v1` }, query);
  expect(hidden).toEqual({ data: null, errors: [{ message: 'Unknown field "gadgetCollection" on type Query' }] });
});

it("answers CORS preflights for the listed origins only", async () => {
  const preflight = (origin: string) =>
    fetch(server.endpoint, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "apikey,content-type" },
    });
  const allowed = await preflight("http://allowed.test");
  expect(allowed.headers.get("access-control-allow-origin")).toBe("http://allowed.test");
  const other = await preflight("http://elsewhere.test");
  expect(other.headers.get("access-control-allow-origin")).toBeNull();
});

// GraphiQL in a real browser (Debian's chromium via playwright-core): the demo's server serves the
// page from its own bundled assets; a query shows a value this test seeded, and the docs explorer
// finds a table's type.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildGraphiql } from "../../server/build.mjs";
import { openBrowser, openGraphiql, runQuery, showTypeInDocs, type Browser } from "../../server/tools/graphiqlDriver";
import { reflectsTables, startTestServer, type TestServer } from "./support";

let server: TestServer;
let browser: Browser;
let assets: string;
let ready = false;
const seeded = "Seeded for the browser test";

beforeAll(async () => {
  assets = mkdtempSync(join(tmpdir(), "graphiql-assets-"));
  await buildGraphiql(assets);
  server = await startTestServer({ demo: true, assetsDir: assets });
  await server.db.query(
    "insert into public.blog (owner_id, name, description) select id, $1, 'from the test' from public.account order by id limit 1",
    [seeded],
  );
  ready = await reflectsTables(server, "blogCollection");
  browser = await openBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(assets, { recursive: true, force: true });
});

it("serves the page and its assets without any outside host", async () => {
  const requested: string[] = [];
  const failed: string[] = [];
  browser.page.on("request", (r) => requested.push(r.url()));
  browser.page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  await openGraphiql(browser.page, `${server.running.baseUrl}/graphql/v1/graphiql`);
  await browser.page.waitForLoadState("networkidle");
  expect(requested.length).toBeGreaterThan(0);
  for (const url of requested) expect(url.startsWith(server.running.baseUrl), url).toBe(true);
  expect(failed).toEqual([]);
  // The anon key is preset in the headers editor.
  expect(await browser.page.locator(".graphiql-editor-tool").textContent()).toContain(server.anonKey.slice(0, 24));
  expect(browser.pageErrors).toEqual([]);
});

it("runs a query and shows the seeded value", async (ctx) => {
  if (!ready) ctx.skip();
  const text = await runQuery(browser.page, "{ blogCollection { edges { node { name description } } } }", seeded);
  expect(text).toContain("from the test");
});

it("finds a table's type in the docs explorer", async (ctx) => {
  if (!ready) ctx.skip();
  const docs = await showTypeInDocs(browser.page, "BlogPost");
  expect(docs).toContain("title");
  expect(browser.pageErrors).toEqual([]);
});

// Browser driving for the GraphiQL page (used by the browser test and the screenshot script):
// Debian's chromium, headless, with a fresh profile → a page that runs queries and searches docs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// Quiet, offline-friendly flags: no first-run UI, no background traffic, no GPU.
const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  page: Page;
  /** Messages of uncaught page errors, for assertions. */
  pageErrors: string[];
  close(): Promise<void>;
}

export async function openBrowser(viewport = { width: 1400, height: 860 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "pg-graphql-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: flags,
      viewport,
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  return {
    page,
    pageErrors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function openGraphiql(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator(".graphiql-container").waitFor({ timeout: 30_000 });
}

/** Replaces the editor's text with `query`, runs it and returns the response pane's text. */
export async function runQuery(page: Page, query: string, expectText: string): Promise<string> {
  // CodeMirror 5 keeps its editor object on the wrapper element, made once GraphiQL has mounted.
  await page.locator(".graphiql-query-editor .CodeMirror").waitFor({ timeout: 30_000 });
  await page.evaluate((text) => {
    const wrapper = (globalThis as any).document.querySelector(".graphiql-query-editor .CodeMirror");
    wrapper.CodeMirror.setValue(text);
  }, query);
  await page.locator("button.graphiql-execute-button").click();
  const response = page.locator(".graphiql-response");
  await response.getByText(expectText).first().waitFor({ timeout: 30_000 });
  return (await response.textContent()) ?? "";
}

/** Opens the docs explorer, searches for `typeName` and opens that type's page. */
export async function showTypeInDocs(page: Page, typeName: string): Promise<string> {
  await page.getByRole("button", { name: "Show Documentation Explorer" }).click();
  const explorer = page.locator(".graphiql-doc-explorer");
  await explorer.waitFor();
  await explorer.locator("input").first().fill(typeName);
  await page.getByRole("option").filter({ hasText: new RegExp(`^${typeName}$`) }).first().click();
  const title = explorer.locator(".graphiql-doc-explorer-title");
  await title.getByText(typeName, { exact: true }).waitFor({ timeout: 30_000 });
  return (await explorer.textContent()) ?? "";
}

// The dashboard in a real browser (Debian's chromium via playwright-core) against a throwaway
// platform of its own (the server bundle and the dashboard built into a private folder, started
// as its own process) under the default rate limit of 60 calls a minute per user: sign in by the
// #token= link, see the organization and project, create a project until it is healthy, make a
// table on the SQL page and read it through GraphiQL, find that request in the logs and its chart,
// reveal a key, pause and restore, make and delete a branch; each page opened cold stays within
// its call budget; a refused token, another user's project and a 429 are shown; nothing is
// fetched from another host and no CSP rule is broken.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page, Request } from "playwright-core";
import { dashboardCsp } from "../../server/src/dashboard/dashboardRoute";
import { pageBudgets, signInCalls } from "../../server/src/dashboard/web/api/callBudget";
import { openBrowser, runQuery, showTypeInDocs, type Browser } from "../../server/tools/graphiqlDriver";
import { openPage, overflowsWindow, runSql, signInLink, unlabelledControls, waitForHeading } from "../../server/tools/dashboardDriver";
import { api, graphqlAt } from "../management/support";
import { startChildPlatform, type ChildPlatform } from "../security/childPlatform";

let platform: ChildPlatform;
let browser: Browser;
let page: Page;
let base: string;
let token: string;
let first: { ref: string; org: string };
let shopRef = "";
const v1Requests: string[] = [];
const elsewhere: string[] = [];
const cspViolations: string[] = [];
const pageErrors: string[] = [];

async function call(who: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await api(base, who, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A user with an organization and a project, made through the API (3 of the user's calls). */
async function userWithProject(email: string, orgName: string, projectName: string): Promise<{ token: string; ref: string; org: string }> {
  const t = await platform.token(email);
  const org = await call(t, "POST", "/v1/organizations", { name: orgName });
  const project = await call(t, "POST", "/v1/projects", { name: projectName, organization_slug: org.slug, region: "us-east-1", db_pass: "a-password" });
  return { token: t, ref: project.ref, org: org.slug };
}

function watch(p: Page, v1: string[]): void {
  p.on("request", (r: Request) => {
    if (!r.url().startsWith(base)) elsewhere.push(r.url());
    else if (new URL(r.url()).pathname.startsWith("/v1/")) v1.push(`${r.method()} ${r.url().slice(base.length)}`);
  });
  p.on("pageerror", (e) => pageErrors.push(e.message));
  p.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
}

const rowOf = (p: Page, text: string) => p.getByRole("row").filter({ hasText: text });

beforeAll(async () => {
  platform = await startChildPlatform("dashboard", ["--rate-limit", "60", "--secrets-key", "07".repeat(32), "--pool-size", "2"], { dashboard: true });
  base = platform.baseUrl;
  const owner = await userWithProject("owner@example.com", "Acme", "first");
  token = owner.token;
  first = owner;
  browser = await openBrowser({ width: 1280, height: 800 });
  page = browser.page;
  watch(page, v1Requests);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
});

describe("the dashboard", () => {
  it("is served by the platform from its own files, under its content security policy", async () => {
    expect(platform.server.banner.get("Dashboard")).toBe(`${base}/dashboard/`);
    const html = await fetch(`${base}/dashboard/`);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-security-policy")).toBe(dashboardCsp);
    expect(dashboardCsp).toContain("script-src 'self'");
    expect(dashboardCsp).not.toContain("unsafe-inline");
    const text = await html.text();
    expect(text).toContain('<script type="module" src="assets/dashboard.js"></script>');
    expect(text).not.toMatch(/<script>|<style|style=/);
    const script = await fetch(`${base}/dashboard/assets/dashboard.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect((await fetch(`${base}/dashboard`, { redirect: "manual" })).headers.get("location")).toBe("/dashboard/");
    for (const path of ["/dashboard/assets/nothing.js", "/dashboard/assets/..%2f..%2fmain.mjs", "/dashboard/assets/%2e%2e/main.mjs"]) {
      expect([403, 404], path).toContain((await fetch(`${base}${path}`)).status);
    }
  });

  it("signs in by the #token= link, which leaves the address at once, and shows the organization and its project", async () => {
    await page.goto(signInLink(base, token));
    await waitForHeading(page, "Projects");
    expect(page.url()).toBe(`${base}/dashboard/#/`);
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("pg-graphql-dashboard-token"))).toBe(token);
    await page.getByRole("heading", { level: 2, name: /Acme/ }).waitFor();
    const row = rowOf(page, first.ref);
    await row.getByText("ACTIVE_HEALTHY").waitFor();
    expect(await row.textContent()).toContain("first");
    expect(await row.textContent()).toContain("us-east-1");
    await page.getByText(/API calls left this minute: \d+ of 60/).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
  });

  it("creates a project and waits until it is healthy", async () => {
    await page.getByRole("button", { name: "New project" }).click();
    const form = page.getByRole("form", { name: "New project" });
    await form.getByLabel("Name", { exact: true }).fill("shop");
    await form.getByLabel("Region").locator("option").first().waitFor({ state: "attached" });
    expect(await unlabelledControls(page)).toEqual([]);
    await form.getByRole("button", { name: "Create project" }).click();
    const ready = page.getByRole("status").filter({ hasText: /Project shop .* is healthy/ });
    await ready.waitFor({ timeout: 180_000 });
    shopRef = (await ready.locator("code").textContent()) ?? "";
    expect(shopRef).toMatch(/^[a-z]{20}$/);
    expect(await page.locator(".health li.healthy").count()).toBe(3);
    await rowOf(page, shopRef).getByText("ACTIVE_HEALTHY").waitFor();
  });

  it("runs SQL: makes a table, shows rows, and PostgreSQL's errors with their place", async () => {
    await openPage(page, base, `/project/${shopRef}/sql`, "SQL");
    const made = await runSql(
      page,
      `create table items (id bigint generated always as identity primary key, label text not null);
insert into items (label) values ('first item'), ('second item');
create table "<img src=x onerror=alert(1)>" (id int primary key);`,
    );
    expect(made).toContain("returned no rows");
    const rows = await runSql(page, "select id, label from items order by id");
    expect(rows).toContain("2 rows");
    expect(rows).toContain("second item");
    const missing = await runSql(page, "select 1;\nselect * from nowhere");
    expect(missing).toContain("Refused (400)");
    expect(missing).toContain('42P01: relation "nowhere" does not exist');
    await page.getByRole("button", { name: "Show line 2, column 15 in the editor" }).click();
    const selected = await page.getByLabel("SQL to run in the project's database").evaluate((t: any) => t.value.slice(t.selectionStart, t.selectionStart + 7));
    expect(selected).toBe("nowhere");
    const refused = await runSql(page, "insert into items (label) values ('not written')", true);
    expect(refused).toContain("read-only transaction");
    expect(await unlabelledControls(page)).toEqual([]);
  });

  it("lists the tables with row level security and the advisors' findings, a tenant's name as text", async () => {
    await openPage(page, base, `/project/${shopRef}/tables`, "Tables");
    const items = page.getByRole("table", { name: /Tables, views/ }).getByRole("row").filter({ hasText: "items" }).first();
    await items.waitFor();
    expect(await items.textContent()).toContain("off");
    await page.getByRole("cell", { name: "<img src=x onerror=alert(1)>", exact: true }).waitFor();
    expect(await page.locator("main img").count()).toBe(0);
    const findings = page.getByRole("table", { name: "Advisors' findings" });
    await findings.getByRole("row").filter({ hasText: "public.items" }).first().waitFor({ timeout: 60_000 });
    // The table's row counts the findings about it (RLS off in an exposed schema, at least).
    expect(Number(await items.getByRole("cell").nth(6).textContent())).toBeGreaterThanOrEqual(1);
  });

  it("runs a GraphiQL query that returns the table's rows, and shows how to turn introspection on", async () => {
    await openPage(page, base, `/project/${shopRef}/graphiql`, "GraphiQL");
    await page.locator(".graphiql-container").waitFor({ timeout: 60_000 });
    const note = page.getByRole("note", { name: "Introspection" });
    await note.waitFor();
    // PostgreSQL's own words for public stay in its comment beside the directive.
    expect(await note.textContent()).toContain(`comment on schema public is 'standard public schema @graphql({"introspection":true})';`);
    const tool = page.locator(".graphiql-editor-tool").filter({ hasText: "Authorization" });
    await tool.waitFor();
    const headers = (await tool.textContent()) ?? "";
    expect(headers).toContain("apikey");
    expect(headers).toContain("Authorization");
    const answer = await runQuery(page, "{ itemsCollection(orderBy: [{ id: AscNullsLast }]) { edges { node { label } } } }", "second item");
    expect(answer).toContain("first item");
    // The statement goes to the SQL editor; nothing runs until the user runs it there.
    await note.getByRole("button", { name: "Put it in the SQL editor" }).click();
    await waitForHeading(page, "SQL");
    expect(await page.getByLabel("SQL to run in the project's database").inputValue()).toContain("comment on schema public is");
    expect(await runSql(page, await page.getByLabel("SQL to run in the project's database").inputValue())).toContain("returned no rows");
    await openPage(page, base, `/project/${shopRef}/graphiql`, "GraphiQL");
    await page.locator(".graphiql-container").waitFor({ timeout: 60_000 });
    await page.getByRole("status").filter({ hasText: "Introspection is on for public" }).waitFor({ timeout: 60_000 });
    // Without inflect_names the type keeps the table's name.
    expect(await showTypeInDocs(page, "items")).toContain("label");
  });

  it("shows the GraphQL request in the logs and in the chart", async () => {
    await openPage(page, base, `/project/${shopRef}/logs`, "Logs");
    await page.getByLabel("Requests", { exact: true }).selectOption("graphql");
    const row = rowOf(page, `/project/${shopRef}/graphql/v1`).filter({ hasText: "anon" }).first();
    await row.waitFor({ timeout: 60_000 });
    expect(await row.textContent()).toMatch(/POST.*200/);
    const caption = page.locator("figure.chart figcaption");
    const counted = /(\d+) requests and (\d+) errors/.exec((await caption.textContent()) ?? "")!;
    expect(Number(counted[1])).toBeGreaterThanOrEqual(1);
    expect(await page.locator("figure.chart canvas").getAttribute("aria-label")).toMatch(/^Requests and errors per minute: \d+ requests/);
    // All requests: the SQL page's refused statements are errors of the Management API.
    await page.getByLabel("Requests", { exact: true }).selectOption("all");
    await caption.filter({ hasText: /[1-9]\d* errors/ }).waitFor({ timeout: 60_000 });
  });

  it("keeps secret keys masked until revealed", async () => {
    await openPage(page, base, `/project/${shopRef}`, "shop");
    const serviceRole = page.locator('[data-key-name="service_role"]');
    expect(await serviceRole.textContent()).toContain("•");
    expect(await page.locator('[data-key-name="anon"]').textContent()).toMatch(/^eyJ[^•]+$/);
    const form = page.getByRole("form", { name: "New API key" });
    await form.getByLabel("Type").selectOption("secret");
    await form.getByLabel("Name").fill("backend");
    await form.getByRole("button", { name: "Create key" }).click();
    const backend = page.locator('[data-key-name="backend"]');
    await backend.waitFor();
    expect(await backend.textContent()).toMatch(/^sb_secret_.*[·•]/);
    await page.getByRole("button", { name: "Reveal secret keys" }).click();
    await backend.filter({ hasText: /^sb_secret_[A-Za-z0-9_-]+$/ }).waitFor();
    expect(await serviceRole.textContent()).toMatch(/^eyJ[^•]+$/);
    expect(v1Requests).toContain(`GET /v1/projects/${shopRef}/api-keys?reveal=true`);
    await page.getByRole("button", { name: "Hide secret keys" }).click();
    expect(await serviceRole.textContent()).toContain("•");
  });

  it("pauses and restores a project", async () => {
    await openPage(page, base, "/", "Projects");
    await page.getByRole("button", { name: "Pause shop" }).click();
    await rowOf(page, shopRef).getByText("INACTIVE").waitFor({ timeout: 120_000 });
    const keys = (await call(token, "GET", `/v1/projects/${shopRef}/api-keys`)) as Array<{ name: string; api_key: string }>;
    const anon = keys.find((k) => k.name === "anon")!.api_key;
    expect((await graphqlAt(`${base}/project/${shopRef}/graphql/v1`, anon, "{ __typename }")).status).toBe(503);
    await page.getByRole("button", { name: "Restore shop" }).click();
    await rowOf(page, shopRef).getByText("ACTIVE_HEALTHY").waitFor({ timeout: 120_000 });
    expect((await graphqlAt(`${base}/project/${shopRef}/graphql/v1`, anon, "{ __typename }")).status).toBe(200);
  });

  it("fits a narrow window", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const [path, heading] of [["/", "Projects"], [`/project/${shopRef}`, "shop"], [`/project/${shopRef}/sql`, "SQL"], [`/project/${shopRef}/settings`, "Settings"]] as const) {
        await openPage(page, base, path, heading);
        expect(await overflowsWindow(page), path).toBe(false);
        expect(await unlabelledControls(page), path).toEqual([]);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it("makes a branch with its progress shown, and deletes it after its name is typed", async () => {
    const user = await userWithProject("branches@example.com", "Branching", "trunk");
    const tab = await page.context().newPage();
    watch(tab, []);
    try {
      await tab.goto(signInLink(base, user.token, `/project/${user.ref}/branches`));
      await waitForHeading(tab, "Branches");
      await tab.getByLabel("Branch name").fill("preview");
      await tab.getByRole("button", { name: "Create branch" }).click();
      await tab.getByRole("status").filter({ hasText: "Branch preview is made (MIGRATIONS_PASSED)" }).waitFor({ timeout: 180_000 });
      const row = rowOf(tab, "preview");
      await row.waitFor();
      await row.getByRole("button", { name: "Delete branch preview" }).click();
      const confirm = tab.getByRole("group", { name: "Delete branch preview" });
      const button = confirm.getByRole("button", { name: "Delete branch" });
      expect(await button.isDisabled()).toBe(true);
      await confirm.getByRole("textbox").fill("preview");
      await button.click();
      await tab.getByRole("table", { name: "Branches" }).getByText("No branch yet.").waitFor({ timeout: 120_000 });
    } finally {
      await tab.close();
    }
  });

  it("toured every page within one minute's calls of the default rate limit", () => {
    // With the three calls this test made itself, the owner never reaches 60, however fast it ran.
    expect(v1Requests.length, v1Requests.join("\n")).toBeLessThanOrEqual(50);
  });

  it("signs out, which forgets the token", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await waitForHeading(page, "Sign in");
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("pg-graphql-dashboard-token"))).toBeNull();
  });

  it("opens each page, cold, within its call budget", async () => {
    const user = await userWithProject("budget@example.com", "Budget", "budget");
    const pages: Array<[keyof typeof pageBudgets, string, string]> = [
      ["projects", "/", "Projects"],
      ["overview", `/project/${user.ref}`, "budget"],
      ["graphiql", `/project/${user.ref}/graphiql`, "GraphiQL"],
      ["sql", `/project/${user.ref}/sql`, "SQL"],
      ["tables", `/project/${user.ref}/tables`, "Tables"],
      ["logs", `/project/${user.ref}/logs`, "Logs"],
      ["branches", `/project/${user.ref}/branches`, "Branches"],
      ["functions", `/project/${user.ref}/functions`, "Functions"],
      ["secrets", `/project/${user.ref}/secrets`, "Secrets"],
      ["settings", `/project/${user.ref}/settings`, "Settings"],
    ];
    for (const [name, path, heading] of pages) {
      const calls: string[] = [];
      const tab = await page.context().newPage();
      watch(tab, calls);
      const failed: string[] = [];
      tab.on("response", (r) => {
        if (r.url().includes("/v1/") && r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      });
      try {
        await tab.goto(signInLink(base, user.token, path));
        await waitForHeading(tab, heading);
        await tab.waitForLoadState("networkidle");
        await tab.locator("[role=status] progress").first().waitFor({ state: "detached" });
        expect(failed, name).toEqual([]);
        expect(calls.length - signInCalls, `${name}: ${calls.join(", ")}`).toBeLessThanOrEqual(pageBudgets[name]);
        expect(calls.length - signInCalls, name).toBeGreaterThan(0);
      } finally {
        await tab.close();
      }
    }
  });

  it("shows a refused token (401) and offers to sign in again", async () => {
    const tab = await page.context().newPage();
    try {
      await tab.goto(signInLink(base, `sbp_${"0".repeat(40)}`));
      const alert = tab.getByRole("alert").filter({ hasText: "The token was refused (401)" }).first();
      await alert.waitFor();
      await alert.getByRole("button", { name: "Sign in again" }).click();
      await waitForHeading(tab, "Sign in");
      await tab.getByLabel("Access token").fill(`sbp_${"1".repeat(40)}`);
      await tab.getByRole("button", { name: "Sign in" }).click();
      await tab.getByRole("alert").filter({ hasText: "The token was refused (401)" }).waitFor();
      await waitForHeading(tab, "Sign in");
    } finally {
      await tab.close();
    }
  });

  it("shows another user's project as not allowed (403)", async () => {
    const stranger = await platform.token("stranger@example.com");
    const tab = await page.context().newPage();
    watch(tab, []);
    try {
      await tab.goto(signInLink(base, stranger, `/project/${first.ref}/sql`));
      await tab.getByRole("alert").filter({ hasText: "Not allowed (403)" }).waitFor();
      // The page itself is not shown, so it makes no call of its own.
      expect(await tab.getByLabel("SQL to run in the project's database").count()).toBe(0);
    } finally {
      await tab.close();
    }
  });

  it("shows a 429 with its retry time and sends no call while it lasts", async () => {
    const busy = await platform.token("busy@example.com");
    let limited = false;
    for (let i = 0; i < 70 && !limited; i++) limited = (await api(base, busy, "GET", "/v1/profile")).status === 429;
    expect(limited).toBe(true);
    const calls: string[] = [];
    const tab = await page.context().newPage();
    watch(tab, calls);
    try {
      await tab.goto(signInLink(base, busy));
      await tab.getByRole("alert").filter({ hasText: /Too many calls \(429\): retry in \d+ s/ }).first().waitFor();
      await tab.getByRole("alert").filter({ hasText: /Rate limit reached: calls resume in \d+ s/ }).waitFor();
      const sent = calls.length;
      // A page opened during the block is refused without a call.
      await tab.goto(`${base}/dashboard/#/project/${first.ref}/tables`);
      await tab.getByRole("alert").filter({ hasText: /Too many calls \(429\)/ }).first().waitFor();
      expect(calls.length).toBe(sent);
    } finally {
      await tab.close();
    }
  });

  it("called no other host, broke no content security rule and threw no error", () => {
    expect(elsewhere).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

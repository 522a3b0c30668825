// Browser driving for the dashboard (used by its browser test and the screenshot script): sign in
// through the `#token=` link, open a page and wait for its heading, run SQL on the SQL page, and
// check that every form control has a label.
import type { Page } from "playwright-core";

export function signInLink(baseUrl: string, token: string, to = "/"): string {
  return `${baseUrl}/dashboard/#token=${encodeURIComponent(token)}&to=${encodeURIComponent(to)}`;
}

/** Waits for the page's heading (each page has one h1). */
export async function waitForHeading(page: Page, name: string | RegExp, timeout = 60_000): Promise<void> {
  await page.getByRole("heading", { level: 1, name }).waitFor({ timeout });
}

/** Opens a page by its address (the app is already loaded: only the fragment changes). */
export async function openPage(page: Page, baseUrl: string, path: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/#${path}`);
  await waitForHeading(page, heading);
}

/** Replaces the SQL editor's text, runs it, and waits for this run's answer (rows, no rows, or
 * an error): the page counts finished runs, so an earlier answer is never taken for it. */
export async function runSql(page: Page, text: string, readOnly = false): Promise<string> {
  await page.getByLabel("SQL to run in the project's database").fill(text);
  const box = page.getByRole("checkbox", { name: "Read-only" });
  if ((await box.isChecked()) !== readOnly) await box.click();
  const runs = Number((await page.locator(".sql-answer").getAttribute("data-runs")) ?? "0");
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const answer = page.locator(`.sql-answer[data-runs="${runs + 1}"]`).locator("[role=status], [role=alert]").first();
  await answer.waitFor({ timeout: 60_000 });
  return (await page.locator(".sql-answer").textContent()) ?? "";
}

/** Form controls outside GraphiQL that have neither a label nor an aria-label. */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const controls = [...doc.querySelectorAll("input, select, textarea")] as any[];
    return controls
      .filter((c) => !c.closest(".graphiql-container") && c.type !== "hidden")
      .filter((c) => (c.labels?.length ?? 0) === 0 && !c.getAttribute("aria-label") && !c.getAttribute("aria-labelledby"))
      .map((c) => c.outerHTML.slice(0, 120));
  });
}

/** Whether the page is wider than the window (content cut off on a narrow screen). */
export function overflowsWindow(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const g = globalThis as any;
    return g.document.documentElement.scrollWidth > g.innerWidth + 1;
  });
}

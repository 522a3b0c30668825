// Screenshots of the dashboard for the README (run by screenshot.ts on the demo): signs in through
// the demo's #token= link, makes a table on the SQL page, reads it through GraphiQL, and writes
// docs/dashboard-<page>.png for the main pages at 1280×800.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { openBrowser, runQuery } from "./graphiqlDriver";
import { openPage, runSql, waitForHeading } from "./dashboardDriver";

const setupSql = `create table if not exists product (
  id bigint generated always as identity primary key,
  name text not null,
  price numeric(8, 2) not null
);
insert into product (name, price) values ('Teapot', 24.50), ('Kettle', 39.00), ('Mug', 8.25);
comment on schema public is '@graphql({"introspection": true})';`;

async function shoot(page: Page, outDir: string, name: string): Promise<string> {
  const path = join(outDir, `dashboard-${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** `link`: the demo's dashboard address with its #token= fragment. Answers the files written. */
export async function takeDashboardScreenshots(link: string, ref: string, outDir: string): Promise<string[]> {
  const base = link.replace(/\/dashboard\/#.*$/, "");
  const browser = await openBrowser({ width: 1280, height: 800 });
  const written: string[] = [];
  try {
    const { page } = browser;
    await page.goto(link);
    await waitForHeading(page, "Projects");
    written.push(await shoot(page, outDir, "projects"));

    await openPage(page, base, `/project/${ref}/sql`, "SQL");
    await runSql(page, setupSql);
    await runSql(page, "select id, name, price from product order by id");
    written.push(await shoot(page, outDir, "sql"));

    await openPage(page, base, `/project/${ref}/graphiql`, "GraphiQL");
    await page.locator(".graphiql-container").waitFor({ timeout: 60_000 });
    await runQuery(page, "{\n  productCollection(orderBy: [{ price: DescNullsLast }]) {\n    edges { node { name price } }\n  }\n}", "Kettle");
    written.push(await shoot(page, outDir, "graphiql"));

    await openPage(page, base, `/project/${ref}`, /./);
    await page.locator("ul.health li").first().waitFor({ timeout: 60_000 });
    written.push(await shoot(page, outDir, "overview"));

    await openPage(page, base, `/project/${ref}/tables`, "Tables");
    await page.getByRole("table", { name: "Advisors' findings" }).waitFor({ timeout: 60_000 });
    written.push(await shoot(page, outDir, "tables"));

    await openPage(page, base, `/project/${ref}/logs`, "Logs");
    await page.locator("figure.chart figcaption").waitFor({ timeout: 60_000 });
    await page.getByLabel("Range").selectOption("15m");
    await page.locator("figure.chart figcaption").filter({ hasText: "in 16 buckets" }).waitFor({ timeout: 60_000 });
    await page.getByRole("table", { name: /Recent requests/ }).waitFor({ timeout: 60_000 });
    written.push(await shoot(page, outDir, "logs"));
  } finally {
    await browser.close();
  }
  return written;
}

// Screenshots for the README: starts the demo (throwaway cluster), opens GraphiQL in chromium, runs
// a query and opens a table's type in the docs explorer, and writes docs/graphiql.png; then the
// dashboard's main pages on the demo's project, docs/dashboard-*.png beside it.
// Run: node server/build.mjs && node server/dist/screenshot.mjs [output.png]
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultSettings } from "../src/config";
import { startDemo } from "../src/demo/runDemo";
import { openBrowser, openGraphiql, runQuery, showTypeInDocs } from "./graphiqlDriver";
import { takeDashboardScreenshots } from "./dashboardScreenshots";

// The bundle sits in server/dist/, two folders below the repository root.
const output = process.argv[2] ?? fileURLToPath(new URL("../../docs/graphiql.png", import.meta.url));

const query = `query RecentPosts {
  blogPostCollection(first: 3, orderBy: [{ id: DescNullsLast }]) {
    edges {
      node {
        title
        blog {
          name
        }
      }
    }
  }
}`;

const demo = await startDemo({ ...defaultSettings(), jwtSecret: undefined, port: 0, poolSize: 2, logLevel: "warn" });
try {
  const browser = await openBrowser({ width: 1440, height: 900 });
  try {
    await openGraphiql(browser.page, `${demo.running.baseUrl}/graphql/v1/graphiql`);
    await runQuery(browser.page, query, "Engines");
    await showTypeInDocs(browser.page, "BlogPost");
    mkdirSync(dirname(output), { recursive: true });
    await browser.page.screenshot({ path: output });
    process.stdout.write(`wrote ${output}\n`);
  } finally {
    await browser.close();
  }
  const lines = new Map(demo.platform);
  for (const written of await takeDashboardScreenshots(lines.get("dashboard")!, lines.get("project ref")!, dirname(output))) {
    process.stdout.write(`wrote ${written}\n`);
  }
} finally {
  await demo.stop();
}

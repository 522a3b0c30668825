// Build step for the server: bundles the TypeScript server into dist/main.mjs, GraphiQL (from
// its npm packages, so the page works offline) into dist/graphiql/, and the dashboard (React,
// GraphiQL, the chart and table libraries, all from npm) into dist/dashboard/.
// Run: node server/build.mjs
import { copyFile, mkdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Bundles the node server (and the screenshot tool); npm dependencies stay external and load
 * from node_modules. */
export async function buildServer(outDir = join(here, "dist")) {
  await build({
    entryPoints: { main: join(here, "src", "main.ts"), screenshot: join(here, "tools", "screenshot.ts") },
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: true,
    logLevel: "warning",
  });
}

// What every browser bundle shares: React's production build, minified, for today's browsers.
const browserBundle = {
  bundle: true,
  platform: "browser",
  target: "es2020",
  minify: true,
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
};

/** Bundles GraphiQL, React and the page's entry into graphiql.js and graphiql.css. */
export async function buildGraphiql(outDir = join(here, "dist", "graphiql")) {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(here, "src", "graphiql", "entry.ts")],
    outfile: join(outDir, "graphiql.js"),
    format: "iife",
    ...browserBundle,
  });
  await copyFile(join(dirname(require.resolve("graphiql/package.json")), "graphiql.min.css"), join(outDir, "graphiql.css"));
}

/** Bundles the dashboard: dashboard.js (an ES module) with its lazily loaded chunks in chunks/,
 * dashboard.css, and GraphiQL's stylesheet as graphiql.css. Nothing is fetched from elsewhere at
 * run time. */
export async function buildDashboard(outDir = join(here, "dist", "dashboard")) {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { dashboard: join(here, "src", "dashboard", "web", "main.tsx") },
    outdir: outDir,
    entryNames: "[name]",
    chunkNames: "chunks/[name]-[hash]",
    splitting: true,
    format: "esm",
    jsx: "automatic",
    ...browserBundle,
  });
  await copyFile(join(dirname(require.resolve("graphiql/package.json")), "graphiql.min.css"), join(outDir, "graphiql.css"));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await Promise.all([buildServer(), buildGraphiql(), buildDashboard()]);
}

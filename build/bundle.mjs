// Build stage: src/index.ts -> one synchronous script for bare V8 (no Node built-ins, no dynamic
// import), exposed as the global `__pg_graphql_bundle`.
import { build } from "esbuild";
import { readFile } from "node:fs/promises";

// pg-format loads its keyword list with require(__dirname + '/reserved.js'), which a bundle
// cannot follow; point it at the sibling module so esbuild inlines the list.
const pgFormatKeywords = {
  name: "pg-format-keywords",
  setup(b) {
    b.onLoad({ filter: /pg-format[\\/]lib[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      return { contents: source.replace("require(__dirname + '/reserved.js')", "require('./reserved.js')"), loader: "js" };
    });
  },
};

export async function bundle({ root, version, minify = true }) {
  const result = await build({
    entryPoints: [`${root}/src/index.ts`],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "__pg_graphql_bundle",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2021",
    minify,
    legalComments: "none",
    charset: "utf8",
    define: {
      __PG_GRAPHQL_VERSION__: JSON.stringify(version),
      // graphql-js skips its development-only instanceof checks in production.
      "process.env.NODE_ENV": '"production"',
    },
    plugins: [pgFormatKeywords],
    logLevel: "warning",
  });
  return result.outputFiles[0].text;
}

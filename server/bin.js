#!/usr/bin/env node
// Entry of the `pg-graphql-server` command: runs the bundle that `node server/build.mjs` writes.
import { existsSync } from "node:fs";

const bundle = new URL("./dist/main.mjs", import.meta.url);
if (!existsSync(bundle)) {
  console.error("pg-graphql-server is not built yet: run `node server/build.mjs` (or `make build`) first");
  process.exit(1);
}
await import(bundle.href);

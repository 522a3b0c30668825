// Build stage: the one version source. package.json's "version", unless PG_GRAPHQL_VERSION
// overrides it (used to build the same sources as an older release for the upgrade test).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

export function projectRoot() {
  return root;
}

export function version() {
  const override = process.env.PG_GRAPHQL_VERSION;
  const v = override && override.length > 0 ? override : JSON.parse(readFileSync(`${root}/package.json`, "utf8")).version;
  if (!/^\d+\.\d+\.\d+$/.test(v)) throw new Error(`not a semantic version: ${v}`);
  return v;
}

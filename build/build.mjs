// Build: sources -> dist/extension/ (pg_graphql.control and pg_graphql--<version>.sql), the files
// `make install` copies into PostgreSQL's extension folder.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { bundle } from "./bundle.mjs";
import { controlFile, installScript } from "./install-script.mjs";
import { projectRoot, version as projectVersion } from "./version.mjs";

const root = projectRoot();
const version = projectVersion();
const minify = process.env.PG_GRAPHQL_MINIFY !== "0";
const out = process.env.PG_GRAPHQL_DIST ?? `${root}/dist/extension`;

const code = await bundle({ root, version, minify });
const stamp = `${version}-${createHash("sha256").update(code).digest("hex").slice(0, 12)}`;
mkdirSync(out, { recursive: true });
const script = installScript({ root, version, stamp, bundle: code });
writeFileSync(`${out}/pg_graphql--${version}.sql`, script);
writeFileSync(`${out}/pg_graphql.control`, controlFile({ root, version }));
console.log(`built pg_graphql ${version} (${stamp}): bundle ${(code.length / 1024).toFixed(0)} KiB -> ${out}`);

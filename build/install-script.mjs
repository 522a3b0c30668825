// Build stage: bundle + sql/*.sql -> the self-contained install script of one release. The bundle
// lives in one init function, evaluated once per backend (per PLV8 context) and kept on the
// global object under a build stamp; the SQL-facing functions only call into it, and re-run the
// init function only when the stamp they were built with differs (a stale bundle after an
// upgrade) or no bundle is loaded yet.
import { readdirSync, readFileSync } from "node:fs";

const bundleKey = 'Symbol.for("pg_graphql.bundle")';

/** JS that leaves the current bundle in `entry`, evaluating the init function when needed. */
function loader(stamp) {
  return [
    `var entry = globalThis[${bundleKey}];`,
    `if (entry === undefined || entry.stamp !== ${JSON.stringify(stamp)}) {`,
    `  plv8.find_function("graphql._bundle_init")();`,
    `  entry = globalThis[${bundleKey}];`,
    `}`,
  ].join("\n");
}

function dollarQuote(body, tag) {
  const quote = `$${tag}$`;
  if (body.includes(quote)) throw new Error(`function body contains its own quote ${quote}`);
  return `${quote}\n${body}\n${quote}`;
}

function generatedFunctions({ bundle, stamp }) {
  const init = [
    bundle,
    `var previous = globalThis[${bundleKey}];`,
    `globalThis[${bundleKey}] = { stamp: ${JSON.stringify(stamp)}, api: __pg_graphql_bundle,`,
    `  evaluations: (previous === undefined ? 0 : previous.evaluations) + 1 };`,
  ].join("\n");
  return `
-- Generated: the resolver bundle, evaluated once per backend and role.
create function graphql._bundle_init()
    returns void
    volatile
    language plv8
as ${dollarQuote(init, "bundle")};

create function graphql._internal_resolve(
    "query" text,
    "variables" text default '{}',
    "operationName" text default null,
    "extensions" jsonb default null,
    -- The caller's role and search path, as graphql._resolve_text reads them; without them,
    -- the resolver reads them with a statement of its own.
    "role" text default null,
    "searchPath" text default null
)
    returns text
    volatile
    language plv8
    -- The statements a request runs are small and cheap, but their estimate can pass
    -- jit_above_cost (on big tables, or a large catalog for the reflection query), and JIT
    -- compilation would then cost far more than running them, on every execution. The setting is
    -- the caller's again when the function returns.
    set jit = off
as ${dollarQuote(`${loader(stamp)}\nreturn entry.api.resolve(query, variables, operationName, extensions, role, searchPath);`, "resolve")};

-- What the loaded bundle reports about itself: version, build stamp, evaluations, cache figures.
create function graphql._bundle_info()
    returns jsonb
    volatile
    language plv8
as ${dollarQuote(`${loader(stamp)}\nreturn Object.assign({ stamp: entry.stamp, evaluations: entry.evaluations }, entry.api.stats());`, "info")};
`;
}

export function installScript({ root, version, stamp, bundle }) {
  const dir = `${root}/sql`;
  const files = readdirSync(dir).filter((f) => f.endsWith(".sql")).sort();
  const before = files.filter((f) => f < "50");
  const after = files.filter((f) => f >= "50");
  const read = (f) => `-- ${f}\n${readFileSync(`${dir}/${f}`, "utf8").trimEnd()}\n`;
  return [
    `-- pg_graphql ${version} (build ${stamp})`,
    `\\echo Use "CREATE EXTENSION pg_graphql" to load this file. \\quit`,
    "",
    ...before.map(read),
    generatedFunctions({ bundle, stamp }),
    ...after.map(read),
  ].join("\n");
}

export function controlFile({ root, version }) {
  return readFileSync(`${root}/extension.control`, "utf8").replaceAll("@VERSION@", version);
}

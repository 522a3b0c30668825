// HTTP stage (platform mode): the dashboard's built assets → the page at /dashboard/ and its files
// at /dashboard/assets/, under a content security policy that allows this origin alone and no
// inline script or style. The page is a client of the public /v1 API: this plugin adds no API.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply } from "fastify";

export const dashboardPath = "/dashboard/";

// This file runs from its source (tests) or inside a server bundle (server/dist/main.mjs); the
// build writes the dashboard into dashboard/ beside the bundle: server/dist/dashboard/.
const fromSource = import.meta.url.endsWith(".ts");
export const defaultDashboardAssets = fileURLToPath(new URL(fromSource ? "../../dist/dashboard/" : "./dashboard/", import.meta.url));

/** Scripts, styles and API calls from this origin only; fonts and images also as data: URLs
 * (GraphiQL's stylesheet embeds its fonts). No frame may hold the page, no form posts anywhere. */
export const dashboardCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

// Static: no inline script or style, no value of any tenant; the app reads everything from /v1.
const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <title>Dashboard · pg_graphql</title>
    <link rel="stylesheet" href="assets/dashboard.css">
    <link rel="stylesheet" href="assets/graphiql.css">
    <script type="module" src="assets/dashboard.js"></script>
  </head>
  <body>
    <div id="root"><noscript>The dashboard needs JavaScript.</noscript></div>
  </body>
</html>
`;

function secured(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", dashboardCsp)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer")
    .header("cross-origin-opener-policy", "same-origin");
}

export interface DashboardOptions {
  /** The folder `buildDashboard` wrote (server/dist/dashboard/ by default). */
  assetsDir?: string;
}

export async function dashboardRoute(fastify: FastifyInstance, options: DashboardOptions): Promise<void> {
  const assetsDir = options.assetsDir ?? defaultDashboardAssets;
  fastify.get("/dashboard", (_request, reply) => reply.redirect(dashboardPath, 301));
  const notBuilt = (reply: FastifyReply) =>
    reply.code(503).send({ message: "The dashboard is not built: run `node server/build.mjs` (or `make build`)" });
  fastify.get(dashboardPath, (_request, reply) => {
    if (!existsSync(join(assetsDir, "dashboard.js"))) return notBuilt(reply);
    return secured(reply).header("cache-control", "no-cache").type("text/html; charset=utf-8").send(page);
  });
  // A server built without the dashboard (a data API only build) starts without a warning.
  if (!existsSync(assetsDir)) {
    fastify.get(`${dashboardPath}assets/*`, (_request, reply) => notBuilt(reply));
    return;
  }
  await fastify.register(fastifyStatic, {
    root: assetsDir,
    prefix: `${dashboardPath}assets/`,
    decorateReply: false,
    index: false,
    list: false,
    dotfiles: "deny",
    // A server built without the dashboard answers its page with 503 and the build command
    // above; a start-up warning about the missing folder would say less, in every process.
    // Chunk names carry their content's hash; the entry's names do not, so they are revalidated.
    cacheControl: false,
    setHeaders: (reply, path) => {
      secured(reply).header("cache-control", path.includes("/chunks/") ? "public, max-age=31536000, immutable" : "no-cache");
    },
  });
}

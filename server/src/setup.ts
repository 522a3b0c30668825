// Setup stage: a superuser connection string → the database prepared as a hosted project is
// (API roles, auth helpers, grants on public), optionally with the demo schema loaded and plv8
// added to shared_preload_libraries.
import { readFile } from "node:fs/promises";
import pg from "pg";
import { preloadPlv8 } from "./preload";

const rolesSqlFile = new URL("../setup/roles.sql", import.meta.url);
/** The demo schema (a blog with row level security), also loaded into the demo's project. */
export const demoSchemaSql = new URL("../demo/schema.sql", import.meta.url);
/** A user of the demo schema (ada, who owns the Engines blog and its draft), for the banner's user tokens. */
export const demoUser = { sub: "00000000-0000-4000-8000-00000000000a", role: "authenticated" } as const;

/** The roles, auth helpers and grants of a hosted project, as SQL text. */
export function rolesSql(): Promise<string> {
  return readFile(rolesSqlFile, "utf8");
}

/** Returns what the database's preloading of plv8 is (or now will be) and what to do about it. */
export async function applySetup(adminUrl: string, options: { demo: boolean; preloadPlv8?: boolean }): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(await rolesSql());
    if (options.demo) await client.query(await readFile(demoSchemaSql, "utf8"));
    return await preloadPlv8(client, options.preloadPlv8 === true);
  } finally {
    await client.end();
  }
}

/** The same database reached as the server's own login role. */
export function asAuthenticator(url: string): string {
  const match = /^(postgres(?:ql)?:\/\/)(?:[^@/?]*@)?(.*)$/.exec(url);
  if (!match) throw new Error("the database URL must start with postgresql://");
  return `${match[1]}authenticator@${match[2]}`;
}

// Setup stage: a superuser connection string → the database prepared as a hosted project is
// (API roles, auth helpers, grants on public), optionally with the demo schema loaded.
import { readFile } from "node:fs/promises";
import pg from "pg";

const rolesSql = new URL("../setup/roles.sql", import.meta.url);
const demoSql = new URL("../demo/schema.sql", import.meta.url);

export async function applySetup(adminUrl: string, options: { demo: boolean }): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(await readFile(rolesSql, "utf8"));
    if (options.demo) await client.query(await readFile(demoSql, "utf8"));
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

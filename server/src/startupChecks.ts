// Server lifecycle: the configured database → warnings an operator must see at start-up: the
// extension is missing (every query would fail), or the server logs in as a superuser.
import type { Database } from "./database";
import { readiness } from "./health";

export async function startupWarnings(database: Database): Promise<string[]> {
  const warnings: string[] = [];
  const ready = await readiness(database);
  if (ready.kind === "notReady") warnings.push(`not ready: ${ready.message}`);
  let role: { name: string; superuser: boolean } | undefined;
  try {
    const { rows } = await database.pool.query<{ name: string; superuser: boolean }>(
      "select current_user as name, rolsuper as superuser from pg_roles where rolname = current_user",
    );
    role = rows[0];
  } catch {
    return warnings; // readiness already says the database is unavailable
  }
  if (role?.superuser) {
    warnings.push(
      `the database URL logs in as the superuser "${role.name}": requests still switch to their API role, but a ` +
        "flaw anywhere on the way would run with every privilege. Connect as the `authenticator` role that `setup` creates " +
        "(postgresql://authenticator@host/db).",
    );
  }
  return warnings;
}

// Server lifecycle: the configured database → warnings an operator must see at start-up: the
// extension is missing (every query would fail), or the server logs in as a superuser.
import { ConfigError } from "./config";
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

/** Refuses to start when a role user tokens may name is missing, cannot be switched to, or would
 * give a request more than an API role may have (a superuser, or the login role itself). */
export async function checkExtraRoles(database: Database, roles: readonly string[]): Promise<void> {
  if (roles.length === 0) return;
  const { rows } = await database.pool.query<{ role: string; problem: string | null }>(
    `select r.name as role,
            case when g.oid is null then 'does not exist'
                 when g.rolsuper then 'is a superuser'
                 when g.rolname = current_user or g.rolname = 'authenticator' then 'is the login role'
                 when not pg_has_role(current_user, g.oid, 'member') then 'is not granted to ' || current_user
            end as problem
       from unnest($1::text[]) as r(name)
       left join pg_roles g on g.rolname = r.name`,
    [roles],
  );
  const problems = rows.filter((r) => r.problem !== null).map((r) => `"${r.role}" ${r.problem}`);
  if (problems.length > 0) throw new ConfigError(`--jwt-roles: ${problems.join("; ")}`);
}

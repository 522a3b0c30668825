// Routes (Management API): SQL in a project's database on the platform's own logins (as the
// owner role, or read-only), with the server's statement timeout and errors answered as 400.
import { invalid } from "../errors/domainError";
import type { ProjectAccess } from "../tenants/projectLogins";
import { withProjectSession, type ProjectSession } from "../tenants/projectSession";
import { sqlFailure } from "../tenants/sqlErrors";
import type { ProjectRecord } from "../tenants/projectStore";
import type { Caller } from "../http/operation";

export async function withProjectSql<T>(
  call: Caller,
  project: ProjectRecord,
  access: ProjectAccess,
  work: (session: ProjectSession) => Promise<T>,
  failure?: string,
  text?: string,
): Promise<T> {
  if (project.status !== "ACTIVE_HEALTHY") throw invalid(`Project ${project.ref} is not active (status ${project.status})`);
  const timeoutMs = call.services.pools.settings.statementTimeoutMs;
  try {
    const login = await call.services.logins.login(project, access, timeoutMs);
    return await withProjectSession(login, timeoutMs, work);
  } catch (e) {
    throw sqlFailure(e, failure, text);
  }
}

// Routes (Management API): SQL in a project's database on the platform's own logins (as the
// owner role, or read-only), with the server's statement timeout and errors answered as 400.
import { ApiError } from "../http/apiError";
import type { ProjectAccess, ProjectLogin } from "../project/projectLogins";
import { withProjectSession, type ProjectSession } from "../project/projectSession";
import { sqlFailure } from "../project/sqlErrors";
import type { ProjectRecord } from "../store/projectStore";
import type { Call } from "./operation";

/** Runs `work` with a login into an active project's database; its SQL errors become 400s. */
export async function withProjectLogin<T>(
  call: Call,
  project: ProjectRecord,
  access: ProjectAccess,
  work: (login: ProjectLogin, timeoutMs: number) => Promise<T>,
  failure?: string,
): Promise<T> {
  if (project.status !== "ACTIVE_HEALTHY") throw new ApiError(400, `Project ${project.ref} is not active (status ${project.status})`);
  const timeoutMs = call.services.pools.settings.statementTimeoutMs;
  try {
    return await work(await call.services.logins.login(project, access, timeoutMs), timeoutMs);
  } catch (e) {
    throw sqlFailure(e, failure);
  }
}

/** Runs `work` on one connection to the project's database, closed after. */
export function withProjectSql<T>(
  call: Call,
  project: ProjectRecord,
  access: ProjectAccess,
  work: (session: ProjectSession) => Promise<T>,
  failure?: string,
): Promise<T> {
  return withProjectLogin(call, project, access, (login, timeoutMs) => withProjectSession(login, timeoutMs, work), failure);
}

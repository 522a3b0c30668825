// Branches stage: the projects listed in `platform.history_owner_fixes` → each one's migration
// history (`supabase_migrations`) owned by its owner role, and the project off the list. Run at
// start-up; a project that cannot be reached now (paused, server down) stays listed for the next.
import type { FastifyBaseLogger } from "fastify";
import { sqlState, withConnection, type SqlPool } from "../platform/sql";
import type { ProjectServers } from "../provision/projectServers";
import type { ProjectStore } from "../store/projectStore";
import { historyOwnerSql } from "./branchDdl";

/** Fixes every listed project it can; answers the refs fixed. */
export async function fixHistoryOwners(platform: SqlPool, projects: ProjectStore, servers: ProjectServers, log: FastifyBaseLogger): Promise<string[]> {
  const listed = await platform.rows<{ project_ref: string }>("select project_ref from platform.history_owner_fixes order by project_ref");
  const fixed: string[] = [];
  for (const { project_ref: ref } of listed) {
    const project = await projects.byRef(ref);
    try {
      if (project) {
        await withConnection(servers.adminUrlFor(project.server, project.database_name), async (sql) => {
          for (const statement of historyOwnerSql(project.owner_role)) {
            try {
              await sql.rows(statement);
            } catch (e) {
              // No history (never migrated): nothing to give.
              if (sqlState(e) === "3F000" || sqlState(e) === "42P01") return;
              throw e;
            }
          }
        });
      }
      await platform.rows("delete from platform.history_owner_fixes where project_ref = $1", [ref]);
      fixed.push(ref);
    } catch (e) {
      log.warn({ err: e, ref }, "giving the migration history to the project's owner failed; the next start retries");
    }
  }
  return fixed;
}

// Provision stage: the platform's configuration → how many sessions each kind of login and each
// project's database may hold. PostgreSQL 15 reserves slots only for superusers, so a project's
// database limit leaves room, above what its tenant's logins may take, for its data API pools
// and the platform's own logins; and each login a tenant holds the password of has its own cap.
import type { ManagementConfig } from "../managementConfig";

export interface ConnectionLimits {
  /** Each tenant login: the owner role, CLI and JIT logins. */
  tenantRole: number;
  /** A project's database, every role but superusers counted. */
  database: number;
  /** Database router sessions per project, and in all. */
  routerPerProject: number;
  routerTotal: number;
}

/** Sessions kept for the platform's own logins (SQL, migrations, types, advisors, backups). */
const platformReserve = 10;

export function connectionLimits(config: Pick<ManagementConfig, "tenantConnectionLimit" | "routerProjectSessions" | "routerSessions">, dataApi: { poolSize: number; processes: number }): ConnectionLimits {
  const tenantRole = config.tenantConnectionLimit ?? 20;
  return {
    tenantRole,
    database: tenantRole + dataApi.poolSize * dataApi.processes + platformReserve,
    routerPerProject: config.routerProjectSessions ?? tenantRole,
    routerTotal: config.routerSessions ?? 200,
  };
}

// Provision stage: the platform's configuration and each project server's `max_connections` →
// how many sessions each kind of login and each project's database may hold, and the connection
// budget of the data API: one per PostgreSQL server, split across the server's processes
// (`--workers`) and instances, shared by every project pool of a process. PostgreSQL 15 reserves
// slots only for superusers, so a project's database limit leaves room, above what its tenant's
// logins may take, for its data API pools and the platform's own logins; and each login a tenant
// holds the password of has its own cap.

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

/** Connections of the platform database pool in each process. */
export const platformPoolSize = 10;
/** Project operations (create, branch, delete, pause, restore) run at once per server and process. */
export const provisionConcurrency = 4;
/** The most a waiting project operation waits for its turn. */
export const provisionWaitMs = 10 * 60 * 1000;
/** The most a caller waits for a platform database connection. */
export const platformConnectionWaitMs = 30_000;

/** The operator's limits (`--tenant-connection-limit`, `--router-project-sessions`, `--router-sessions`). */
interface LimitSettings {
  tenantConnectionLimit?: number | undefined;
  routerProjectSessions?: number | undefined;
  routerSessions?: number | undefined;
}

export function connectionLimits(config: LimitSettings, dataApi: { poolSize: number; processes: number }): ConnectionLimits {
  const tenantRole = config.tenantConnectionLimit ?? 20;
  return {
    tenantRole,
    database: tenantRole + dataApi.poolSize * dataApi.processes + platformReserve,
    routerPerProject: config.routerProjectSessions ?? tenantRole,
    routerTotal: config.routerSessions ?? 200,
  };
}

/** What a project server allows, read through the door at start. */
export interface ServerCapacity {
  maxConnections: number;
  superuserReserved: number;
}

export interface ConnectionBudget {
  /** Data API connections one process may hold on the server, all its projects' pools together. */
  perProcess: number;
  /** Server processes sharing the server: `--workers` × `--server-instances`. */
  processes: number;
  /** Connections of the server kept out of the data API's budget: superusers' reserved slots,
   * the platform's own work in every process, and tenants' own sessions. */
  reserved: number;
  /** Whether the budget is `--data-api-connections` rather than worked out from max_connections. */
  configured: boolean;
}

/** Connections one process's own work may hold on a server: the platform pool (when the platform
 * database is there), the logs writer and the change listener, and for each operation running
 * its lock, a door session and a login's session. */
export const platformConnectionsPerProcess = platformPoolSize + 3 + provisionConcurrency * 3;

/** `--data-api-connections` and `--server-instances`. */
interface BudgetSettings {
  dataApiConnections?: number | undefined;
  serverInstances?: number | undefined;
}

/** Sessions left to tenants (their logins, the router) when the budget is worked out. */
function tenantShare(capacity: ServerCapacity): number {
  return Math.max(10, Math.floor(capacity.maxConnections / 10));
}

/** The server's data API budget: `--data-api-connections` when given, else `max_connections` less
 * the superusers' slots, the platform's own connections and a tenth for tenants' own sessions;
 * split evenly across every process of every instance (at least one connection each). */
export function connectionBudget(capacity: ServerCapacity, config: BudgetSettings, workers: number): ConnectionBudget {
  const processes = workers * (config.serverInstances ?? 1);
  const reserved = capacity.superuserReserved + platformConnectionsPerProcess * processes + tenantShare(capacity);
  const total = config.dataApiConnections ?? capacity.maxConnections - reserved;
  return { perProcess: Math.max(1, Math.floor(total / processes)), processes, reserved, configured: config.dataApiConnections !== undefined };
}

/** The `max_connections` a server needs so that each of `projects` in use at once keeps two warm
 * connections in every process (a request on a project without one pays a new backend's start). */
export function recommendedMaxConnections(capacity: ServerCapacity, budget: ConnectionBudget, projects: number): number {
  const wanted = 2 * projects * budget.processes;
  const fixed = capacity.superuserReserved + platformConnectionsPerProcess * budget.processes;
  // The inverse of connectionBudget: max_connections less a tenth (at least 10) for tenants.
  return Math.max(wanted + fixed + 10, Math.ceil((wanted + fixed) / 0.9));
}

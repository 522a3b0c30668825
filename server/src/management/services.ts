// Management API composition: the configuration → the platform database (made and migrated),
// the project servers (templates ready), the stores, the provisioner and the project pools,
// with half-made projects finished. Every route reaches the platform through these.
import type { DataApiSettings } from "./dataApi/projectPools";
import type { FastifyBaseLogger } from "fastify";
import { ProjectPools } from "./dataApi/projectPools";
import { ProjectAuthenticators } from "./auth/projectAuthenticators";
import { ProjectLogins } from "./tenants/projectLogins";
import type { ManagementConfig } from "./managementConfig";
import { ensurePlatformDatabase, migrate } from "./platform/migrate";
import { SqlPool } from "./platform/sql";
import { ChangeFeed, type ProjectChange } from "./platform/changeFeed";
import { ProjectServers } from "./servers/projectServers";
import { SuperuserDoor } from "./door/superuserDoor";
import {
  connectionBudget, connectionLimits, platformConnectionWaitMs, platformPoolSize, provisionConcurrency, provisionWaitMs,
  recommendedMaxConnections, type ConnectionBudget, type ConnectionLimits, type ServerCapacity,
} from "./servers/connectionLimits";
import { ProvisionQueue } from "./servers/provisionQueue";
import { ProjectHolds } from "./dataApi/projectHolds";
import { Provisioner, type ProvisionStep } from "./projects/provisioner";
import { OrganizationStore } from "./tenants/organizationStore";
import { ProjectStore } from "./tenants/projectStore";
import { BranchStore } from "./branches/branchStore";
import { FunctionStore } from "./functions/functionStore";
import { openLogsDatabase } from "./logs/logsDatabase";
import { LogQueries } from "./logs/logQueries";
import { LogWriter } from "./logs/logWriter";
import { RateLimitStore } from "./users/rateLimitStore";
import { SecretCipher } from "./secrets/secretCipher";
import { SecretStore } from "./secrets/secretStore";
import { UserStore } from "./users/userStore";
import { platformStores, type PlatformStores } from "./platformStores";
import { dataApiTuning } from "./dataApi/dataApiTuning";
import { Backups } from "./backups/backups";
import { DatabaseOptions } from "./settings/databaseOptions";
import { JitAccess } from "./access/jitAccess";
import { LoginRoles } from "./access/loginRoles";
import { ReadOnlyMode } from "./settings/readOnlyMode";
import { NetworkBans } from "./access/networkBans";
import { RestrictionsStore } from "./access/networkRestrictions";
import { SettingsStore } from "./settings/settingsStore";
import type { RouterAddress } from "./pgRouter/poolerEntry";

export interface Services {
  config: ManagementConfig;
  platform: SqlPool;
  users: UserStore;
  /** The platform stores the handlers use, built once. */
  stores: PlatformStores;
  organizations: OrganizationStore;
  projects: ProjectStore;
  rateLimits: RateLimitStore;
  secrets: SecretStore;
  functions: FunctionStore;
  branches: BranchStore;
  /** Batches request log events into the logs database. */
  logWriter: LogWriter;
  logs: LogQueries;
  servers: ProjectServers;
  /** The only way to superuser rights on the project servers (see door/). */
  door: SuperuserDoor;
  /** Sessions each kind of login and each project database may hold. */
  limits: ConnectionLimits;
  /** Each project server's capacity and data API connection budget (by server key). */
  budgets: Map<string, { capacity: ServerCapacity; budget: ConnectionBudget }>;
  /** Project operations running and waiting per server. */
  queue: ProvisionQueue;
  /** Projects whose new sessions wait (a branch copying the database). */
  holds: ProjectHolds;
  /** Statement timeout of the platform's own work in project databases (copies, replays, restores). */
  workTimeoutMs: number;
  provisioner: Provisioner;
  /** Data API pools, one per project in use. */
  pools: ProjectPools;
  /** The platform's logins into project databases (SQL, migrations, types, advisors). */
  logins: ProjectLogins;
  /** Each project's data API settings and read-only mode. */
  settings: SettingsStore;
  readOnly: ReadOnlyMode;
  loginRoles: LoginRoles;
  restrictions: RestrictionsStore;
  backups: Backups;
  bans: NetworkBans;
  databaseOptions: DatabaseOptions;
  jit: JitAccess;
  /** Project changes told to and heard from the other server processes. */
  changes: ChangeFeed;
  /** The database router's address once it listens (set by the server that runs it). */
  databaseRouter?: RouterAddress;
  close(): Promise<void>;
}

export interface ServiceOptions {
  log: FastifyBaseLogger;
  /** Pool size of each project's data API connection pool. */
  dataApi: DataApiSettings;
  /** Server processes sharing the platform (each has its own data API pools). */
  processes?: number;
  checkpoint?: (step: ProvisionStep, ref: string) => Promise<void>;
}

/** The platform database, created when missing and migrated (also used by the token command). */
export async function openPlatform(url: string): Promise<SqlPool> {
  await ensurePlatformDatabase(url);
  const platform = new SqlPool(url, platformPoolSize, "pg_graphql_platform", platformConnectionWaitMs);
  try {
    await migrate(platform);
  } catch (e) {
    await platform.end();
    throw e;
  }
  return platform;
}

/** Another process changed a project: act on it here too. */
async function heard(change: ProjectChange, pools: ProjectPools, bans: NetworkBans, holds: ProjectHolds): Promise<void> {
  switch (change.kind) {
    case "dataApi":
      return pools.release(change.ref);
    case "hold":
      holds.hold(change.ref, change.ms);
      return pools.release(change.ref);
    case "resume":
      return holds.resume(change.ref);
    case "bans":
      return bans.refresh();
    default: {
      const unknown: never = change;
      throw new Error(`unknown project change ${JSON.stringify(unknown)}`);
    }
  }
}

export async function openServices(config: ManagementConfig, options: ServiceOptions): Promise<Services> {
  const platform = await openPlatform(config.platformDatabaseUrl);
  let listening: ChangeFeed | undefined;
  try {
    const door = new SuperuserDoor(config.projectServers);
    const servers = await ProjectServers.open(door);
    const processes = options.processes ?? 1;
    const limits = connectionLimits(config, { poolSize: options.dataApi.poolSize, processes: processes * (config.serverInstances ?? 1) });
    const budgets = await serverBudgets(door, config, processes);
    const workTimeoutMs = Math.max(options.dataApi.statementTimeoutMs, 15 * 60 * 1000);
    const projects = new ProjectStore(platform);
    const settings = new SettingsStore(platform);
    const restrictions = new RestrictionsStore(platform);
    const holds = new ProjectHolds();
    const pools = new ProjectPools(
      projects, servers, options.dataApi, new ProjectAuthenticators(platform),
      async (ref) => dataApiTuning(await settings.get(ref), await restrictions.get(ref), config.now),
      (server) => budgets.get(server)?.budget.perProcess ?? options.dataApi.poolSize,
      holds,
    );
    const changes = new ChangeFeed(platform, config.platformDatabaseUrl, options.log);
    pools.announce = (ref) => changes.announce({ kind: "dataApi", ref });
    const bans = new NetworkBans(platform, config.now, config.banAfterFailures, (ref) => changes.announce({ kind: "bans", ref }));
    await changes.listen({
      changed: (change) => heard(change, pools, bans, holds),
      resync: async () => {
        await Promise.all([pools.closeAll(), bans.refresh()]);
      },
    });
    listening = changes;
    const readOnly = new ReadOnlyMode(settings, door, pools, config.now, config.diskQuotaBytes);
    const logins = new ProjectLogins(platform, servers, door);
    const queue = new ProvisionQueue(provisionConcurrency, provisionWaitMs);
    const provisioner = new Provisioner(platform, projects, servers, door, logins, {
      log: options.log,
      release: (ref) => pools.changed(ref),
      hold: async (ref, ms) => {
        holds.hold(ref, ms);
        await changes.announce({ kind: "hold", ref, ms });
        await pools.release(ref);
        return async () => {
          holds.resume(ref);
          await changes.announce({ kind: "resume", ref });
        };
      },
      limits,
      workTimeoutMs,
      queue,
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    });
    const logsDb = await openLogsDatabase(config.platformDatabaseUrl);
    const logWriter = new LogWriter(logsDb.writer, { intervalMs: 1000, maxBatch: 500, maxPending: 50_000, log: options.log });
    const finished = await provisioner.reconcile();
    await provisioner.applyLimits();
    if (finished.length > 0) options.log.warn({ refs: finished }, "removed projects left half made or half removed");
    const held = await projects.countByServer();
    for (const [key, { capacity, budget }] of budgets) {
      const message = capacityWarning(key, capacity, budget, held.get(key) ?? 0);
      if (message) options.log.warn(message);
    }
    return {
      config,
      platform,
      users: new UserStore(platform),
      stores: platformStores(platform),
      organizations: new OrganizationStore(platform),
      projects,
      rateLimits: new RateLimitStore(platform, config.rateLimit, config.now),
      functions: new FunctionStore(platform),
      branches: new BranchStore(platform),
      logWriter,
      logs: new LogQueries(logsDb, logWriter),
      secrets: new SecretStore(platform, config.secretsKey ? new SecretCipher(config.secretsKey) : undefined),
      servers,
      door,
      limits,
      budgets,
      queue,
      holds,
      workTimeoutMs,
      provisioner,
      pools,
      logins,
      settings,
      readOnly,
      loginRoles: new LoginRoles(platform, door, config.now, limits.tenantRole),
      restrictions,
      backups: new Backups(platform, door, logins, pools, config.now, { timeoutMs: workTimeoutMs, databaseConnectionLimit: limits.database }),
      bans,
      databaseOptions: new DatabaseOptions(platform),
      jit: new JitAccess(platform, door, config.now, limits.tenantRole),
      changes,
      async close() {
        await changes.close();
        await pools.closeAll();
        await logWriter.close();
        await logsDb.close();
        await platform.end();
      },
    };
  } catch (e) {
    await listening?.close();
    await platform.end();
    throw e;
  }
}

/** Each project server's max_connections and the data API's share of it in this process. */
async function serverBudgets(door: SuperuserDoor, config: ManagementConfig, processes: number): Promise<Services["budgets"]> {
  const budgets: Services["budgets"] = new Map();
  for (const key of door.keys) {
    const rows = await door.server(key).settings.rows(["max_connections", "superuser_reserved_connections"]);
    const value = (name: string) => Number(rows.find((r) => r.name === name)?.setting ?? NaN);
    const capacity: ServerCapacity = { maxConnections: value("max_connections"), superuserReserved: value("superuser_reserved_connections") };
    budgets.set(key, { capacity, budget: connectionBudget(capacity, config, processes) });
  }
  return budgets;
}

/** What to tell the operator when a server's max_connections cannot keep its projects warm (a
 * request on a project without a connection pays a new backend's start). */
export function capacityWarning(key: string, capacity: ServerCapacity, budget: ConnectionBudget, projects: number): string | undefined {
  const recommended = recommendedMaxConnections(capacity, budget, projects);
  if (budget.configured || projects === 0 || capacity.maxConnections >= recommended) return undefined;
  return (
    `project server ${key}: max_connections ${capacity.maxConnections} leaves each of the ${budget.processes} server process(es) ${budget.perProcess} data API connections ` +
    `for its ${projects} projects; for all of them in use at once set max_connections to at least ${recommended} ` +
    `(ALTER SYSTEM SET max_connections = ${recommended}, then restart PostgreSQL)`
  );
}

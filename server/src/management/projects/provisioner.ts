// Provision stage: project records and the project servers → projects made, paused, restored and
// removed as databases. CREATE/DROP DATABASE cannot run in a transaction, so a failed create is
// undone step by step, and `reconcile` finishes what a process that died left half done.
import { randomBytes } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { invalid, notFound } from "../errors/domainError";
import type { SuperuserDoor } from "../door/superuserDoor";
import type { Sql, SqlPool } from "../platform/sql";
import { randomRef } from "../platform/randomRef";
import type { ProjectRecord, ProjectStore } from "../tenants/projectStore";
import type { ProjectLogins } from "../tenants/projectLogins";
import { ownerDefaultPrivileges } from "../tenants/ownerDefaultPrivileges";
import { projectNames } from "../tenants/projectNames";
import type { ProjectServers } from "../servers/projectServers";
import { scramVerifier } from "../tenants/scramVerifier";
import { copyByDump, copyDatabase, handOver, type BranchCopyDeps } from "../branches/branchCopy";
import type { ConnectionLimits } from "../servers/connectionLimits";
import type { ProvisionQueue } from "../servers/provisionQueue";

export type ProvisionStep = "recorded" | "roles" | "database" | "prepared";

export interface ProvisionerOptions {
  /** Called after each step of a create; tests make it throw to exercise the compensation. */
  checkpoint?: (step: ProvisionStep, ref: string) => Promise<void>;
  /** Called before a project's database is closed or dropped, so pools to it end first. */
  release: (ref: string) => Promise<void>;
  /** Closes the platform's pools to a project's database and holds its new data API requests and
   * routed sessions, in every process, for at most `ms`; the function returned ends the hold. */
  hold: (ref: string, ms: number) => Promise<() => Promise<void>>;
  log: FastifyBaseLogger;
  limits: ConnectionLimits;
  /** Statement timeout of the platform's own work in a project database (copies, restores). */
  workTimeoutMs: number;
  /** Bounds the operations running at once on each project server. */
  queue: ProvisionQueue;
}

export interface NewProjectInput {
  organizationSlug: string;
  name: string;
  region: string;
  dbPass: string;
  /** A branch: made on its parent's server, as a copy of the parent's database when `copy`. */
  parent?: { record: ProjectRecord; copy: boolean };
}

// Arbitrary constant naming the per-project locks (the second key is hashtext(ref)).
const projectLock = 7_301_003;

export class Provisioner {
  constructor(
    private readonly platform: SqlPool,
    private readonly store: ProjectStore,
    private readonly servers: ProjectServers,
    private readonly door: SuperuserDoor,
    private readonly logins: ProjectLogins,
    private readonly options: ProvisionerOptions,
  ) {}

  /** Runs `work` in its turn on the project's server (see ProvisionQueue), holding the project's
   * lock: a live operation keeps the reconciler away. The lock is held on a connection of its own,
   * never one of the pool the work itself uses. */
  private async locked<T>(server: string, ref: string, work: (lock: Sql) => Promise<T>): Promise<T> {
    return this.options.queue.run(server, () =>
      this.platform.detached(async (session) => {
        await session.rows("select pg_advisory_lock($1, hashtext($2))", [projectLock, ref]);
        try {
          return await work(session);
        } finally {
          await session.rows("select pg_advisory_unlock($1, hashtext($2))", [projectLock, ref]);
        }
      }),
    );
  }

  /** `locked` for an existing project: its server comes from its record (404 when there is none). */
  private async lockedProject<T>(ref: string, work: () => Promise<T>): Promise<T> {
    const record = await this.current(ref);
    return this.locked(record.server, ref, work);
  }

  async create(input: NewProjectInput): Promise<ProjectRecord> {
    const ref = randomRef();
    const names = projectNames(ref);
    const server = input.parent ? this.servers.get(input.parent.record.server) : this.servers.leastUsed(await this.store.countByServer());
    return this.locked(server.key, ref, async (lock) => {
      // A copy of the parent closes it for a moment: no pause, restore or delete of it meanwhile
      // (the lock ends with its connection).
      if (input.parent?.copy) await lock.rows("select pg_advisory_lock($1, hashtext($2))", [projectLock, input.parent.record.ref]);
      const record = await this.store.insert({
        ref,
        organization_slug: input.organizationSlug,
        name: input.name,
        region: input.region,
        server: server.key,
        database_name: names.database,
        owner_role: names.owner,
        authenticator_role: names.authenticator,
        authenticator_password: randomBytes(24).toString("base64url"),
        jwt_secret: randomBytes(32).toString("base64url"),
      });
      try {
        await this.build(record, input.dbPass, input.parent?.copy ? input.parent.record : undefined);
      } catch (e) {
        await this.undo(record).catch((undoError: unknown) =>
          this.options.log.error({ err: undoError, ref }, "undoing a failed project create failed; the reconciler will finish it"),
        );
        throw e;
      }
      await this.store.setStatus(ref, "ACTIVE_HEALTHY");
      return { ...record, status: "ACTIVE_HEALTHY" };
    });
  }

  private async build(record: ProjectRecord, dbPass: string, copyOf: ProjectRecord | undefined): Promise<void> {
    const checkpoint = this.options.checkpoint ?? (async () => {});
    const names = projectNames(record.ref);
    const server = this.door.server(record.server);
    const { limits } = this.options;
    await checkpoint("recorded", record.ref);
    await server.roles.createProjectRoles({
      owner: names.owner,
      ownerVerifier: scramVerifier(dbPass),
      authenticator: names.authenticator,
      authenticatorVerifier: scramVerifier(record.authenticator_password),
      ownerConnectionLimit: limits.tenantRole,
    });
    await checkpoint("roles", record.ref);
    const log = (line: string) => this.options.log.info({ ref: record.ref }, line);
    const copied = copyOf !== undefined && (await copyDatabase({ door: server, hold: this.options.hold, log }, copyOf, record, limits.database));
    if (!copied) await server.databases.create(names.database, names.owner, this.servers.templateDatabase, limits.database);
    await checkpoint("database", record.ref);
    await server.databases.grantAccess(names.database, { owner: names.owner, connect: [names.authenticator, names.ownerLogin, names.readOnly] });
    await server.inside.grantPlatformUsage(names.database, names.owner);
    if (copyOf) {
      const deps: BranchCopyDeps = {
        door: server,
        servers: this.servers,
        logins: this.logins,
        timeoutMs: this.options.workTimeoutMs,
        log,
      };
      if (!copied) await copyByDump(deps, copyOf, record);
      await handOver(deps, copyOf, record);
    } else {
      await this.logins.run(record, "owner", this.options.workTimeoutMs, (session) => session.run(ownerDefaultPrivileges(names.owner)));
    }
    await checkpoint("prepared", record.ref);
  }

  /** Removes every trace of a project: its database, its roles, its record. */
  private async undo(record: ProjectRecord): Promise<void> {
    const names = projectNames(record.ref);
    await this.options.release(record.ref);
    const server = this.door.server(record.server);
    await server.databases.drop(names.database);
    await server.roles.dropRoles(projectRoles(record.ref));
    this.logins.forget(record.ref);
    await this.store.remove(record.ref);
  }

  /** Removes the project; false when another call removed it first. */
  async remove(ref: string): Promise<boolean> {
    const found = await this.store.byRef(ref);
    if (!found) return false;
    return this.locked(found.server, ref, async () => {
      const record = await this.store.byRef(ref);
      if (!record) return false;
      await this.store.setStatus(ref, "GOING_DOWN");
      try {
        await this.undo(record);
      } catch (e) {
        // Most often the server could not be reached and nothing was dropped: the project stays.
        await this.store.setStatus(ref, record.status);
        throw e;
      }
      return true;
    });
  }

  async pause(ref: string): Promise<void> {
    await this.lockedProject(ref, async () => {
      const record = await this.current(ref);
      if (record.status !== "ACTIVE_HEALTHY") throw invalid(`Project ${ref} cannot be paused: its status is ${record.status}`);
      await this.options.release(ref);
      // The database is closed first: when its server cannot be reached, nothing has changed.
      const databases = this.door.server(record.server).databases;
      await databases.setAllowConnections(record.database_name, false);
      await databases.endSessions(record.database_name);
      await this.store.setStatus(ref, "INACTIVE");
    });
  }

  async restore(ref: string): Promise<void> {
    await this.lockedProject(ref, async () => {
      const record = await this.current(ref);
      if (record.status !== "INACTIVE") throw invalid(`Project ${ref} cannot be restored: it is not paused (status ${record.status})`);
      await this.door.server(record.server).databases.setAllowConnections(record.database_name, true);
      await this.store.setStatus(ref, "ACTIVE_HEALTHY");
    });
  }

  private async current(ref: string): Promise<ProjectRecord> {
    const record = await this.store.byRef(ref);
    if (!record) throw notFound(`Project ${ref} no longer exists`);
    return record;
  }

  /** Gives every project's owner role and database the configured connection limits (projects
   * made before the limits, or under other ones). */
  async applyLimits(): Promise<void> {
    const byServer = new Map<string, ProjectRecord[]>();
    for (const record of await this.store.withStatus(["ACTIVE_HEALTHY", "INACTIVE"])) {
      byServer.set(record.server, [...(byServer.get(record.server) ?? []), record]);
    }
    for (const [key, records] of byServer) {
      if (!this.servers.find(key)) continue;
      const server = this.door.server(key);
      await server.roles.setConnectionLimit(records.map((r) => r.owner_role), this.options.limits.tenantRole);
      await server.databases.setConnectionLimit(records.map((r) => r.database_name), this.options.limits.database);
    }
  }

  /** Finishes creates and deletes left half done by a process that died (their lock is free). */
  async reconcile(): Promise<string[]> {
    const finished: string[] = [];
    for (const record of await this.store.withStatus(["COMING_UP", "GOING_DOWN"])) {
      const taken = await this.platform.detached(async (session) => {
        const got = await session.one<{ ok: boolean }>("select pg_try_advisory_lock($1, hashtext($2)) as ok", [projectLock, record.ref]);
        if (!got?.ok) return false;
        try {
          await this.undo(record);
        } finally {
          await session.rows("select pg_advisory_unlock($1, hashtext($2))", [projectLock, record.ref]);
        }
        return true;
      });
      if (taken) finished.push(record.ref);
    }
    await this.reopen();
    return finished;
  }

  /** Opens again the databases of active projects that refuse connections: a process died while
   * a branch copied one (which closes it for a moment). */
  private async reopen(): Promise<void> {
    const byServer = new Map<string, string[]>();
    for (const record of await this.store.withStatus(["ACTIVE_HEALTHY"])) {
      if (this.servers.find(record.server)) byServer.set(record.server, [...(byServer.get(record.server) ?? []), record.database_name]);
    }
    for (const [key, names] of byServer) {
      const databases = this.door.server(key).databases;
      for (const name of await databases.closed(names)) {
        this.options.log.warn({ database: name }, "opening an active project's database left closed by an interrupted branch copy");
        await databases.setAllowConnections(name, true);
      }
    }
  }
}

/** Every role a project may have on its server, its temporary work login included. */
export function projectRoles(ref: string): string[] {
  const names = projectNames(ref);
  return [`${ref}_handover`, names.readOnly, names.ownerLogin, names.authenticator, names.owner];
}

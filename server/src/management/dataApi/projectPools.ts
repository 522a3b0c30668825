// Data API stage: a project ref → its record and a pool connected to its database as its
// authenticator role (and, per request, the authenticator of its current keys). Entries are made
// on first use and dropped when the project is paused or removed, when its database stops
// answering, or when more projects are in use than `maxOpen` (least recently used first). The
// connections themselves come from their server's budget (ServerConnections), shared by every
// pool on that server, and close after a while idle, so an idle project holds no backend.
import type { DocumentLimits } from "../../config";
import { Database } from "../../database";
import type { Authenticator } from "../../identity";
import type { ProjectAuthenticators } from "../auth/projectAuthenticators";
import type { ProjectServers } from "../servers/projectServers";
import type { ProjectRecord, ProjectStore } from "../tenants/projectStore";
import type { DataApiTuning } from "./dataApiTuning";
import type { ProjectHolds } from "./projectHolds";
import { ServerConnections } from "../servers/serverConnections";

export interface ProjectEntry {
  project: ProjectRecord;
  database: Database;
  tuning: DataApiTuning;
  /** Set when the entry is released: its pool takes no new statements. */
  released?: boolean;
}

/** How every project's data API runs its requests (the server's own settings). */
export interface DataApiSettings {
  /** Connections per project. */
  poolSize: number;
  statementTimeoutMs: number;
  preparedStatements: boolean;
  limits: DocumentLimits;
  /** A connection idle this long is closed (ms); 0 keeps them. */
  idleTimeoutMs: number;
  /** The longest a request waits for room in its server's budget before it answers 503. */
  connectionWaitMs: number;
}

/** Entries kept: an entry without connections costs only its record and an empty pool. */
export const defaultMaxOpenProjects = 10_000;

export class ProjectPools {
  // In order of last use: a Map keeps insertion order, and a use re-inserts.
  private readonly entries = new Map<string, Promise<ProjectEntry | undefined>>();

  constructor(
    private readonly store: ProjectStore,
    private readonly servers: ProjectServers,
    readonly settings: DataApiSettings,
    private readonly authenticators: ProjectAuthenticators,
    /** The project's own settings (search path, pool size, read-only mode). */
    private readonly tune: (ref: string) => Promise<DataApiTuning>,
    /** Data API connections this process may hold on each project server (by server key). */
    private readonly budget: (server: string) => number,
    private readonly holds: ProjectHolds,
    private readonly maxOpen = defaultMaxOpenProjects,
  ) {}

  private readonly connections = new Map<string, ServerConnections>();

  /** The server's budget in this process, made on first use. */
  serverConnections(server: string): ServerConnections {
    let found = this.connections.get(server);
    if (!found) {
      found = new ServerConnections(this.budget(server), this.settings.connectionWaitMs);
      this.connections.set(server, found);
    }
    return found;
  }

  /** Who may call the project now: rebuilt whenever any process changed its keys. */
  authenticator(entry: ProjectEntry): Promise<Authenticator> {
    return this.authenticators.current(entry.project);
  }

  /** The project's entry, or undefined when there is no such project; while the project is
   * held (its database being copied), once the hold ends. */
  get(ref: string): Promise<ProjectEntry | undefined> {
    const held = this.holds.until(ref);
    if (held) return held.then(() => this.get(ref));
    const known = this.entries.get(ref);
    if (known) {
      this.entries.delete(ref);
      this.entries.set(ref, known);
      return known;
    }
    // A lookup that finds nothing, or fails (platform unreachable), is not remembered.
    const entry: Promise<ProjectEntry | undefined> = this.open(ref).then(
      (opened) => {
        if (opened) this.trim();
        else this.forget(ref, entry);
        return opened;
      },
      (e: unknown) => {
        this.forget(ref, entry);
        throw e;
      },
    );
    this.entries.set(ref, entry);
    return entry;
  }

  /** Closes the least recently used pools beyond `maxOpen`. */
  private trim(): void {
    while (this.entries.size > this.maxOpen) void this.release(this.entries.keys().next().value!);
  }

  get openCount(): number {
    return this.entries.size;
  }

  private forget(ref: string, entry: Promise<ProjectEntry | undefined>): void {
    if (this.entries.get(ref) === entry) this.entries.delete(ref);
  }

  private async open(ref: string): Promise<ProjectEntry | undefined> {
    const project = await this.store.byRef(ref);
    if (!project) return undefined;
    const url = this.servers.loginUrl(project.server, project.database_name, project.authenticator_role, project.authenticator_password);
    const tuning = await this.tune(ref);
    const { statementTimeoutMs, preparedStatements, idleTimeoutMs } = this.settings;
    const poolSize = tuning.poolSize ?? this.settings.poolSize;
    const slots = this.serverConnections(project.server);
    return { project, tuning, database: new Database({ connectionString: url, poolSize, statementTimeoutMs, preparedStatements, idleTimeoutMs, slots }) };
  }

  /** Tells the other server processes that a project's pool must be reopened (set by the services). */
  announce: (ref: string) => Promise<void> = async () => {};

  /** The project's settings or database changed: its pool is reopened here and in every other
   * process (before a pause or a drop, after a settings change or a restore). */
  async changed(ref: string): Promise<void> {
    await this.release(ref);
    await this.announce(ref);
  }

  /** Closes the pools whose stored settings differ from the ones they were opened with (the
   * sweep's catch-up for a change announcement this process missed). */
  async dropStale(): Promise<void> {
    for (const [ref, entry] of [...this.entries]) {
      const opened = await entry.catch(() => undefined);
      if (!opened || (await this.tune(ref)).key === opened.tuning.key) continue;
      if (this.entries.get(ref) === entry) await this.release(ref);
    }
  }

  /** Forgets the project and closes its pool, in this process only (after a failure, or told by
   * another process). */
  async release(ref: string): Promise<void> {
    const entry = this.entries.get(ref);
    this.entries.delete(ref);
    const opened = await entry?.catch(() => undefined);
    if (opened) {
      opened.released = true;
      this.authenticators.forget(opened.project.id);
    }
    // Statements already running or waiting finish first (each within the statement timeout).
    await opened?.database.end(this.settings.statementTimeoutMs > 0 ? this.settings.statementTimeoutMs + 2000 : 30_000);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((ref) => this.release(ref)));
  }
}

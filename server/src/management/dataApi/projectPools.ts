// Data API stage: a project ref → its record, its keyring (JWT secret) and a pool connected to its
// database as its authenticator role. Entries are made on first use and dropped when the
// project is paused or removed, or when its database stops answering.
import { Database } from "../../database";
import { Keyring } from "../../keys";
import type { ProjectServers } from "../provision/projectServers";
import type { ProjectRecord, ProjectStore } from "../store/projectStore";

export interface ProjectEntry {
  project: ProjectRecord;
  keyring: Keyring;
  database: Database;
}

export class ProjectPools {
  private readonly entries = new Map<string, Promise<ProjectEntry | undefined>>();

  constructor(
    private readonly store: ProjectStore,
    private readonly servers: ProjectServers,
    private readonly poolSize: number,
  ) {}

  /** The project's entry, or undefined when there is no such project. */
  get(ref: string): Promise<ProjectEntry | undefined> {
    let entry = this.entries.get(ref);
    if (!entry) {
      entry = this.open(ref);
      this.entries.set(ref, entry);
      // A lookup that failed (platform unreachable) is not remembered.
      entry.then((e) => e === undefined && this.entries.delete(ref), () => this.entries.delete(ref));
    }
    return entry;
  }

  private async open(ref: string): Promise<ProjectEntry | undefined> {
    const project = await this.store.byRef(ref);
    if (!project) return undefined;
    const url = this.servers.authenticatorUrl(project.server, project.database_name, project.authenticator_role, project.authenticator_password);
    return { project, keyring: new Keyring(project.jwt_secret), database: new Database(url, this.poolSize) };
  }

  /** Forgets the project and closes its pool (before a pause or a drop, or after a failure). */
  async release(ref: string): Promise<void> {
    const entry = this.entries.get(ref);
    this.entries.delete(ref);
    const opened = await entry?.catch(() => undefined);
    await opened?.database.end(2000);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((ref) => this.release(ref)));
  }
}

// Data API stage: a project ref → its record, its keyring (JWT secret) and a pool connected to its
// database as its authenticator role. Entries are made on first use and dropped when the
// project is paused or removed, or when its database stops answering.
import type { DocumentLimits } from "../../config";
import { Database } from "../../database";
import { allowedRoles, type Authenticator } from "../../identity";
import { JwtVerifier, sharedSecretSource } from "../../jwtVerifier";
import { Keyring } from "../../keys";
import type { ProjectServers } from "../provision/projectServers";
import type { ProjectRecord, ProjectStore } from "../store/projectStore";
import type { DataApiTuning } from "../settings/dataApiTuning";

export interface ProjectEntry {
  project: ProjectRecord;
  auth: Authenticator;
  database: Database;
  tuning: DataApiTuning;
}

/** How every project's data API runs its requests (the server's own settings). */
export interface DataApiSettings {
  /** Connections per project. */
  poolSize: number;
  statementTimeoutMs: number;
  preparedStatements: boolean;
  limits: DocumentLimits;
}

export class ProjectPools {
  private readonly entries = new Map<string, Promise<ProjectEntry | undefined>>();

  constructor(
    private readonly store: ProjectStore,
    private readonly servers: ProjectServers,
    readonly settings: DataApiSettings,
    /** The project's own settings (search path, pool size, read-only mode). */
    private readonly tune: (ref: string) => Promise<DataApiTuning>,
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
    const tuning = await this.tune(ref);
    const { statementTimeoutMs, preparedStatements } = this.settings;
    const poolSize = tuning.poolSize ?? this.settings.poolSize;
    const auth: Authenticator = {
      keyring: new Keyring(project.jwt_secret),
      userTokens: new JwtVerifier([sharedSecretSource(project.jwt_secret)]),
      roles: allowedRoles([]),
    };
    return { project, auth, tuning, database: new Database({ connectionString: url, poolSize, statementTimeoutMs, preparedStatements }) };
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

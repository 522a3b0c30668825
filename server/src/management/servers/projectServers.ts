// Provision stage: the configured project servers → each one's key (host:port, what a project
// records), its version, the server a new project goes to, and the URLs of logins into its
// databases. Superuser URLs stay in the door: the URLs here carry no credentials but the ones a
// caller gives.
import { withDatabase, withUser } from "../platform/connectionUrl";
import { ServerNotConfiguredError, type SuperuserDoor } from "../door/superuserDoor";
import { templateDatabase } from "../door/projectTemplate";

export interface ProjectServer {
  key: string;
  /** PostgreSQL's server_version, shown as the project's database version. */
  version: string;
}

interface Known extends ProjectServer {
  /** The server's URL with a placeholder user and no password. */
  base: string;
}

export class ProjectServers {
  private readonly byKey = new Map<string, Known>();

  private constructor(servers: Known[]) {
    for (const s of servers) this.byKey.set(s.key, s);
  }

  /** Prepares each server's template through the door, and reads its version. */
  static async open(door: SuperuserDoor): Promise<ProjectServers> {
    const servers: Known[] = [];
    for (const key of door.keys) {
      const server = door.server(key);
      await server.prepareTemplate();
      servers.push({ key, version: await server.settings.version(), base: server.baseUrl });
    }
    return new ProjectServers(servers);
  }

  /** The server, or undefined when the configuration no longer names it. */
  find(key: string): ProjectServer | undefined {
    return this.byKey.get(key);
  }

  get(key: string): ProjectServer {
    return this.known(key);
  }

  /** The server with the fewest projects (the first configured one on a tie). */
  leastUsed(counts: Map<string, number>): ProjectServer {
    let best: ProjectServer | undefined;
    for (const s of this.byKey.values()) {
      if (!best || (counts.get(s.key) ?? 0) < (counts.get(best.key) ?? 0)) best = s;
    }
    return best!;
  }

  /** The URL of a login into a database on the server. */
  loginUrl(key: string, database: string, user: string, password: string): string {
    return withUser(withDatabase(this.known(key).base, database), user, password);
  }

  get templateDatabase(): string {
    return templateDatabase;
  }

  private known(key: string): Known {
    const server = this.byKey.get(key);
    if (!server) throw new ServerNotConfiguredError(`the project server ${key} is not configured`);
    return server;
  }
}

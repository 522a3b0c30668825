// Provision stage: the configured project servers (superuser URLs) → each one's key (host:port,
// what a project records), its admin URLs, its version, and the server a new project goes to.
import { serverKey, withDatabase, withUser } from "../platform/connectionUrl";
import { withConnection } from "../platform/sql";
import { ensureTemplate, templateDatabase } from "./template";

export interface ProjectServer {
  key: string;
  adminUrl: string;
  /** PostgreSQL's server_version, shown as the project's database version. */
  version: string;
}

export class ServerNotConfiguredError extends Error {}

export class ProjectServers {
  private readonly byKey = new Map<string, ProjectServer>();

  private constructor(servers: ProjectServer[]) {
    for (const s of servers) this.byKey.set(s.key, s);
  }

  /** Connects to each server, prepares its template database, and reads its version. */
  static async open(urls: string[]): Promise<ProjectServers> {
    const servers: ProjectServer[] = [];
    for (const url of urls) {
      const adminUrl = withDatabase(url, "postgres");
      await ensureTemplate(adminUrl);
      const version = await withConnection(adminUrl, async (sql) => (await sql.one<{ v: string }>("select current_setting('server_version') as v"))!.v);
      servers.push({ key: serverKey(url), adminUrl, version });
    }
    return new ProjectServers(servers);
  }

  /** The server, or undefined when the configuration no longer names it. */
  find(key: string): ProjectServer | undefined {
    return this.byKey.get(key);
  }

  get(key: string): ProjectServer {
    const server = this.byKey.get(key);
    if (!server) throw new ServerNotConfiguredError(`the project server ${key} is not configured`);
    return server;
  }

  /** The server with the fewest projects (the first configured one on a tie). */
  leastUsed(counts: Map<string, number>): ProjectServer {
    let best: ProjectServer | undefined;
    for (const s of this.byKey.values()) {
      if (!best || (counts.get(s.key) ?? 0) < (counts.get(best.key) ?? 0)) best = s;
    }
    return best!;
  }

  /** A superuser URL for a database on the server. */
  adminUrlFor(key: string, database: string): string {
    return withDatabase(this.get(key).adminUrl, database);
  }

  /** The URL the data API uses: the project's database as its authenticator role. */
  authenticatorUrl(key: string, database: string, role: string, password: string): string {
    return withUser(this.adminUrlFor(key, database), role, password);
  }

  get templateDatabase(): string {
    return templateDatabase;
  }
}

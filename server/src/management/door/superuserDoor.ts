// Door (kernel): the configured project servers' superuser URLs → the only way the platform acts
// with superuser rights on them. Every session is pinned (pinnedSession.ts) and runs one of the
// fixed operations of this folder: roles and databases from the maintenance database, server
// settings and pg_hba.conf, the project template, and the short list of statements inside a
// project database. Nothing here runs tenant SQL, migrations, restores, dumps or diffs.
import { serverKey, withUser } from "../platform/connectionUrl";
import type { Sql } from "../platform/sql";
import { DoorDatabases } from "./doorDatabases";
import { DoorInsideProject } from "./doorInsideProject";
import { DoorRoles } from "./doorRoles";
import { DoorServerSettings } from "./doorServerSettings";
import { withPinnedSession } from "./pinnedSession";
import { ensureTemplate } from "./projectTemplate";

/** The database every server has, where roles, databases and settings are managed. */
const maintenanceDatabase = "postgres";

export class ServerDoor {
  readonly roles: DoorRoles;
  readonly databases: DoorDatabases;
  readonly settings: DoorServerSettings;
  readonly inside: DoorInsideProject;

  constructor(
    readonly key: string,
    private readonly adminUrl: string,
  ) {
    const maintenance = <T>(work: (sql: Sql) => Promise<T>) => withPinnedSession(adminUrl, maintenanceDatabase, work);
    const inProject = <T>(database: string, work: (sql: Sql) => Promise<T>) => withPinnedSession(adminUrl, database, work);
    this.roles = new DoorRoles(maintenance, inProject);
    this.databases = new DoorDatabases(maintenance);
    this.settings = new DoorServerSettings(maintenance);
    this.inside = new DoorInsideProject(inProject);
  }

  /** The server's URL with a placeholder user and no password: what logins are made from. */
  get baseUrl(): string {
    return withUser(this.adminUrl, "platform");
  }

  /** Makes the project template when the server has none ready. */
  prepareTemplate(): Promise<void> {
    return ensureTemplate(this.adminUrl, maintenanceDatabase);
  }
}

export class ServerNotConfiguredError extends Error {}

export class SuperuserDoor {
  private readonly byKey = new Map<string, ServerDoor>();

  /** `urls`: the configured project servers, as superuser URLs. */
  constructor(urls: string[]) {
    for (const url of urls) this.byKey.set(serverKey(url), new ServerDoor(serverKey(url), url));
  }

  get keys(): string[] {
    return [...this.byKey.keys()];
  }

  server(key: string): ServerDoor {
    const door = this.byKey.get(key);
    if (!door) throw new ServerNotConfiguredError(`the project server ${key} is not configured`);
    return door;
  }
}

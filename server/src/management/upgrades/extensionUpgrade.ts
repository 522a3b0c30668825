// Upgrade stage (Management API): a project → the pg_graphql version its database has (the
// extension's catalog row) and the one its server offers, and the upgrade itself: drop and
// re-create the extension in one transaction (each release's install script is self-contained
// and grants what callers need). Both through the superuser door, on pinned sessions.
import type { ServerDoor } from "../door/superuserDoor";

export interface ExtensionVersions {
  installed: string | undefined;
  available: string | undefined;
  /** The server's PostgreSQL major version, e.g. "15". */
  postgresMajor: string;
}

export async function extensionVersions(door: ServerDoor, database: string, serverVersion: string): Promise<ExtensionVersions> {
  return {
    installed: await door.inside.extensionVersion(database, "pg_graphql"),
    available: await door.settings.availableExtension("pg_graphql"),
    postgresMajor: serverVersion.split(/[.\s]/)[0]!,
  };
}

/** Re-creates pg_graphql at the server's default version; all or nothing. */
export function upgradeExtension(door: ServerDoor, database: string): Promise<void> {
  return door.inside.recreatePgGraphql(database);
}

// Project stage: a dump and a project's database freshly copied from the project template →
// the dump's objects and rows restored into it on the project's owner login, leaving out what
// the template already holds and what only a superuser could make; the untrusted extensions the
// platform offers (pg_net) are made first through the door. Nothing is restored when one entry
// fails.
import type { ServerDoor } from "../door/superuserDoor";
import { platformExtensions } from "../door/doorInsideProject";
import type { ProjectRecord } from "../tenants/projectStore";
import { dumpAs, listing, restoreAs, selectEntries } from "./logicalDump";
import type { ProjectLogins } from "../tenants/projectLogins";

export class RestoreRefused extends Error {}

export interface RestoreOptions {
  /** A database of the project other than its own, copied from the template. */
  database: string;
  /** Grants as dumped (a backup), or none (a copy whose grants the caller sets). */
  privileges: boolean;
  timeoutMs: number;
}

/** Restores `dump` into `options.database` as `project`'s owner; the database's CONNECT must
 * already be granted to the project's logins. */
export async function restoreIntoTemplateCopy(door: ServerDoor, logins: ProjectLogins, project: ProjectRecord, dump: Buffer, options: RestoreOptions): Promise<void> {
  const target = { database: options.database };
  const fresh = await dumpAs(await logins.login(project, "read_only", options.timeoutMs, target), { schemaOnly: true });
  const present = new Set((await listing(fresh)).map((e) => e.key));
  const { kept, extensions } = selectEntries(await listing(dump), {
    present,
    platformRoles: new Set(await door.roles.superusers()),
    actsAs: new Set([project.owner_role]),
    trusted: new Set(await door.settings.trustedExtensions()),
  });
  const refused = extensions.filter((name) => !platformExtensions.has(name));
  if (refused.length > 0) throw new RestoreRefused(`the dump needs extensions a project cannot have here: ${refused.join(", ")}`);
  for (const name of extensions) await door.inside.createExtension(options.database, name);
  await restoreAs(await logins.login(project, "owner", options.timeoutMs, target), dump, kept, { privileges: options.privileges });
}

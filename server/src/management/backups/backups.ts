// Settings stage: logical backups of a project's database (pg_dump, kept in the platform database)
// taken on demand, as named restore points and daily on a schedule, and restores that replace
// only that project's database: a new database is restored from the dump and swapped in under
// the project's name, with the old database's settings and grants, then the old one is dropped.
// Dumps run on the project's read-only login and restores on its owner login (what a dumped
// object runs while it loads runs as the tenant); grants come back as dumped.
import type { SettingsChanged } from "../tenants/settingsChanged";
import { templateDatabase } from "../door/projectTemplate";
import type { SuperuserDoor } from "../door/superuserDoor";
import { invalid } from "../errors/domainError";
import type { Sql } from "../platform/sql";
import { dumpAs } from "./logicalDump";
import type { ProjectLogins } from "../tenants/projectLogins";
import { RestoreRefused, restoreIntoTemplateCopy } from "./projectRestore";
import { projectNames } from "../tenants/projectNames";
import type { ProjectRecord } from "../tenants/projectStore";
import { isoText } from "../platform/isoColumn";

export type BackupKind = "scheduled" | "on_demand" | "restore_point";

export interface BackupEntry {
  id: number;
  name: string | null;
  status: "PENDING" | "COMPLETED" | "FAILED" | "REMOVED";
  inserted_at: string;
  completed_at: string | null;
}

const entryColumns = `id::int as id, name, status, ${isoText("inserted_at")} as inserted_at, ${isoText("completed_at")} as completed_at`;
export const defaultSchedule = "04:00:00";
/** Daily backups kept with their dump; older ones stay listed as REMOVED. */
export const keptScheduled = 7;

export class Backups {
  constructor(
    private readonly platform: Sql,
    private readonly door: SuperuserDoor,
    private readonly logins: ProjectLogins,
    private readonly pools: SettingsChanged,
    private readonly now: () => number,
    private readonly work: { timeoutMs: number; databaseConnectionLimit: number },
  ) {}

  async list(ref: string): Promise<BackupEntry[]> {
    return this.platform.rows<BackupEntry>(`select ${entryColumns} from platform.backups where ref = $1 order by inserted_at, id`, [ref]);
  }

  async restorePoint(ref: string, name?: string): Promise<BackupEntry | undefined> {
    return this.platform.one<BackupEntry>(
      `select ${entryColumns} from platform.backups where ref = $1 and kind = 'restore_point' and ($2::text is null or name = $2)
        order by inserted_at desc, id desc limit 1`,
      [ref, name ?? null],
    );
  }

  /** Dumps the project's database now; the entry is FAILED (with the reason kept) when pg_dump fails. */
  async take(project: ProjectRecord, kind: BackupKind, name?: string): Promise<BackupEntry> {
    const at = new Date(this.now());
    const row = await this.platform.one<{ id: number }>(
      "insert into platform.backups (ref, kind, name, status, inserted_at) values ($1, $2, $3, 'PENDING', $4) returning id::int as id",
      [project.ref, kind, name ?? null, at],
    );
    const id = row!.id;
    try {
      const dump = await dumpAs(await this.logins.login(project, "read_only", this.work.timeoutMs));
      await this.platform.rows("update platform.backups set status = 'COMPLETED', dump = $2, completed_at = $3 where id = $1", [id, dump, new Date(this.now())]);
    } catch (e) {
      await this.platform.rows("update platform.backups set status = 'FAILED', error = $2 where id = $1", [id, (e as Error).message]);
    }
    return (await this.platform.one<BackupEntry>(`select ${entryColumns} from platform.backups where id = $1`, [id]))!;
  }

  /** Replaces the project's database with the backup's contents. */
  async restore(project: ProjectRecord, id: number): Promise<void> {
    const row = await this.platform.one<{ dump: Buffer | null; status: string }>("select dump, status from platform.backups where ref = $1 and id = $2", [project.ref, id]);
    if (!row) throw invalid(`Project ${project.ref} has no backup ${id}`);
    if (row.status !== "COMPLETED" || !row.dump) throw invalid(`Backup ${id} cannot be restored: its status is ${row.status}`);
    await this.replace(project, row.dump);
  }

  /** A new database from the project template gets the dump on the owner login, then takes the
   * old one's place with its settings and grants (so every login keeps its CONNECT). */
  private async replace(project: ProjectRecord, dump: Buffer): Promise<void> {
    const names = projectNames(project.ref);
    const restoring = `${project.database_name}_restoring`;
    const server = this.door.server(project.server);
    // The platform's logins exist (and can be granted CONNECT on the new database) from here on.
    await this.logins.login(project, "owner", this.work.timeoutMs);
    await server.databases.drop(restoring);
    await server.databases.create(restoring, names.owner, templateDatabase, this.work.databaseConnectionLimit);
    try {
      await server.databases.copyAccess(project.database_name, restoring);
      await server.inside.grantPlatformUsage(restoring, names.owner);
      await restoreIntoTemplateCopy(server, this.logins, project, dump, { database: restoring, privileges: true, timeoutMs: this.work.timeoutMs });
    } catch (e) {
      await server.databases.drop(restoring);
      if (e instanceof RestoreRefused) throw invalid(`The backup cannot be restored: ${e.message}; nothing was changed`);
      throw e;
    }
    await this.pools.changed(project.ref);
    await server.databases.swap(project.database_name, restoring);
  }

  async schedule(project: ProjectRecord): Promise<{ schedule_for: string; updated_at: string }> {
    const row = await this.platform.one<{ schedule_for: string; updated_at: string }>(
      `select schedule_for::text, ${isoText("updated_at")} as updated_at from platform.backup_schedules where ref = $1`,
      [project.ref],
    );
    return row ?? { schedule_for: defaultSchedule, updated_at: project.created_at };
  }

  async setSchedule(project: ProjectRecord, time: string): Promise<{ schedule_for: string; updated_at: string }> {
    if (!/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(time)) throw invalid(`schedule_for must be a UTC time of day as HH:MM:SS, got "${time}"`);
    await this.platform.rows(
      `insert into platform.backup_schedules (ref, schedule_for) values ($1, $2::time)
       on conflict (ref) do update set schedule_for = excluded.schedule_for, updated_at = now()`,
      [project.ref, time],
    );
    return this.schedule(project);
  }

  /** Takes the daily backup when its time of day has passed since the project's last one. */
  async takeIfDue(project: ProjectRecord): Promise<BackupEntry | undefined> {
    const { schedule_for } = await this.schedule(project);
    const due = await this.platform.one<{ due: boolean }>(
      `with last_slot as (
         select case when ($2::timestamptz at time zone 'UTC')::time >= $3::time
                     then (($2::timestamptz at time zone 'UTC')::date + $3::time) at time zone 'UTC'
                     else (($2::timestamptz at time zone 'UTC')::date - 1 + $3::time) at time zone 'UTC' end as at)
       select (select at from last_slot) > p.created_at
          and not exists (select 1 from platform.backups b where b.ref = p.ref and b.kind = 'scheduled' and b.inserted_at >= (select at from last_slot)) as due
         from platform.projects p where p.ref = $1`,
      [project.ref, new Date(this.now()), schedule_for],
    );
    if (!due?.due) return undefined;
    const taken = await this.take(project, "scheduled");
    await this.platform.rows(
      `update platform.backups set status = 'REMOVED', dump = null
        where ref = $1 and kind = 'scheduled' and status = 'COMPLETED'
          and id not in (select id from platform.backups where ref = $1 and kind = 'scheduled' and status = 'COMPLETED' order by inserted_at desc, id desc limit $2)`,
      [project.ref, keptScheduled],
    );
    return taken;
  }
}

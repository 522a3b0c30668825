// Settings stage: a project's database size against the disk quota → its read-only mode, applied
// in the database (default_transaction_read_only on the project's database, its sessions ended
// so none keeps writing) and seen by the data API (mutations refused). An override lifts it for
// 15 minutes; the sweep puts it back once the override is over.
import type { SettingsChanged } from "../tenants/settingsChanged";
import type { SuperuserDoor } from "../door/superuserDoor";
import type { ProjectRecord } from "../tenants/projectStore";
import { readOnlyNow, type ProjectSettings, type SettingsStore } from "./settingsStore";

export const overrideMs = 15 * 60 * 1000;
/** Hosted projects turn read-only at 95% of their disk. */
const quotaShare = 0.95;

export interface ReadOnlyStatus {
  enabled: boolean;
  override_enabled: boolean;
  override_active_until: string;
}

export class ReadOnlyMode {
  constructor(
    private readonly store: SettingsStore,
    private readonly door: SuperuserDoor,
    private readonly pools: SettingsChanged,
    private readonly now: () => number,
    /** Bytes of database a project may use; undefined: no quota, never read-only. */
    private readonly quotaBytes: number | undefined,
  ) {}

  status(settings: ProjectSettings): ReadOnlyStatus {
    const until = settings.readonly_override_until;
    const active = until !== null && this.now() < until;
    return {
      enabled: settings.readonly_enabled,
      override_enabled: active,
      override_active_until: active ? new Date(until).toISOString() : "",
    };
  }

  /** Measures the project's database and applies the mode it calls for. */
  async refresh(project: ProjectRecord): Promise<ProjectSettings> {
    const settings = await this.store.get(project.ref);
    const enabled = this.quotaBytes !== undefined && (await this.databaseBytes(project)) >= this.quotaBytes * quotaShare;
    const next = enabled === settings.readonly_enabled ? settings : await this.store.update(project.ref, { readonly_enabled: enabled });
    if (next !== settings) await this.pools.changed(project.ref);
    return this.apply(project, next);
  }

  /** Lifts read-only mode for the next 15 minutes. */
  async override(project: ProjectRecord): Promise<ProjectSettings> {
    const settings = await this.store.update(project.ref, { readonly_override_until: this.now() + overrideMs });
    await this.pools.changed(project.ref);
    return this.apply(project, settings);
  }

  /** Sets or resets default_transaction_read_only on the database when it differs from the mode. */
  private async apply(project: ProjectRecord, settings: ProjectSettings): Promise<ProjectSettings> {
    const wanted = readOnlyNow(settings, this.now());
    if (wanted === settings.readonly_applied) return settings;
    const databases = this.door.server(project.server).databases;
    if (wanted) await databases.setSetting(project.database_name, "default_transaction_read_only", "on");
    else await databases.resetSetting(project.database_name, "default_transaction_read_only");
    // Sessions keep the setting they started with: end them so the mode holds for every one.
    await databases.endSessions(project.database_name);
    await this.pools.changed(project.ref);
    return this.store.update(project.ref, { readonly_applied: wanted });
  }

  private async databaseBytes(project: ProjectRecord): Promise<number> {
    return this.door.server(project.server).databases.bytes(project.database_name);
  }
}

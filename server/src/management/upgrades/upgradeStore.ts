// Upgrade stage (Management API): the platform's upgrade rows → typed upgrades (started,
// finished or failed, and the latest of a project or the one a tracking id names).
import type { components } from "../openapi/managementApi.generated";
import type { Sql } from "../platform/sql";

/** An upgrade's status as the Management API document describes it. */
type UpgradeStatus = NonNullable<components["schemas"]["DatabaseUpgradeStatusResponse"]["databaseUpgradeStatus"]>;

export interface UpgradeRow {
  tracking_id: string;
  target_version: string;
  status: number;
  progress: NonNullable<UpgradeStatus["progress"]>;
  /** The document's failure code; what failed is in `error_detail`. */
  error: NonNullable<UpgradeStatus["error"]> | null;
  error_detail: string | null;
  initiated_at: string;
  latest_status_at: string;
}

export const upgradeStatus = { failed: 0, running: 1, done: 2 } as const;

const columns = "tracking_id::text, target_version, status, progress, error, error_detail, initiated_at::text, latest_status_at::text";
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class UpgradeStore {
  constructor(private readonly sql: Sql) {}

  async start(ref: string, targetVersion: string): Promise<string> {
    const row = await this.sql.one<{ tracking_id: string }>(
      "insert into platform.project_upgrades (project_ref, target_version, status, progress) values ($1, $2, $3, '1_started') returning tracking_id::text",
      [ref, targetVersion, upgradeStatus.running],
    );
    return row!.tracking_id;
  }

  async finish(trackingId: string): Promise<void> {
    await this.sql.rows(
      "update platform.project_upgrades set status = $2, progress = '9_completed_upgrade', latest_status_at = now() where tracking_id = $1",
      [trackingId, upgradeStatus.done],
    );
  }

  async fail(trackingId: string, detail: string): Promise<void> {
    await this.sql.rows(
      `update platform.project_upgrades set status = $2, error = '8_upgrade_completion_failed', error_detail = $3,
         latest_status_at = now() where tracking_id = $1`,
      [trackingId, upgradeStatus.failed, detail],
    );
  }

  /** The upgrade a tracking id names, else the project's latest one. */
  async find(ref: string, trackingId?: string): Promise<UpgradeRow | undefined> {
    if (trackingId !== undefined) {
      if (!uuidPattern.test(trackingId)) return undefined;
      return this.sql.one<UpgradeRow>(`select ${columns} from platform.project_upgrades where project_ref = $1 and tracking_id = $2`, [ref, trackingId]);
    }
    return this.sql.one<UpgradeRow>(
      `select ${columns} from platform.project_upgrades where project_ref = $1 order by initiated_at desc, tracking_id limit 1`,
      [ref],
    );
  }
}

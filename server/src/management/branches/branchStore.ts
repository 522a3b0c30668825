// Platform store: branch records (parent, the branch's own project, git branch, status, a
// scheduled deletion), their action runs (one step, its status and logs), and the branches whose
// scheduled deletion was carried out.
import type { components } from "../openapi/managementApi.generated";
import type { Sql } from "../platform/sql";
import { isoColumn } from "../platform/isoColumn";

/** A branch's status: the Management API's values. */
export type BranchStatus = components["schemas"]["BranchResponse"]["status"];

export interface BranchRecord {
  id: string;
  name: string;
  parent_ref: string;
  branch_ref: string;
  git_branch: string | null;
  persistent: boolean;
  status: BranchStatus;
  with_data: boolean;
  db_pass: string;
  created_at: string;
  updated_at: string;
  /** When the branch is deleted for good, unless restored before; null when not scheduled. */
  deletion_scheduled_at: string | null;
  /** Whether scheduling the deletion closed its database (so a restore opens it again). */
  closed_for_deletion: boolean;
}

export interface PurgedBranch {
  id: string;
  name: string;
  parent_ref: string;
  branch_ref: string;
  purged_at: string;
}

export type RunStep = "clone" | "pull" | "health" | "configure" | "migrate" | "seed" | "deploy";
export type RunStatus = "RUNNING" | "EXITED" | "DEAD";

export interface ActionRun {
  id: string;
  branch_id: string;
  step: RunStep;
  status: RunStatus;
  logs: string;
  created_at: string;
  updated_at: string;
}

const branchColumns = `id::text, name, parent_ref, branch_ref, git_branch, persistent, status, with_data, db_pass, ${isoColumn("created_at")}, ${isoColumn("updated_at")},
  ${isoColumn("deletion_scheduled_at")}, closed_for_deletion`;
const runColumns = `id::text, branch_id::text, step, status, logs, ${isoColumn("created_at")}, ${isoColumn("updated_at")}`;

export class BranchStore {
  constructor(private readonly sql: Sql) {}

  async insert(b: Pick<BranchRecord, "name" | "parent_ref" | "branch_ref" | "git_branch" | "persistent" | "with_data" | "db_pass">): Promise<BranchRecord> {
    return (await this.sql.one<BranchRecord>(
      `insert into platform.branches (name, parent_ref, branch_ref, git_branch, persistent, with_data, db_pass)
       values ($1, $2, $3, $4, $5, $6, $7) returning ${branchColumns}`,
      [b.name, b.parent_ref, b.branch_ref, b.git_branch, b.persistent, b.with_data, b.db_pass],
    ))!;
  }

  async ofParent(parentRef: string): Promise<BranchRecord[]> {
    return this.sql.rows<BranchRecord>(`select ${branchColumns} from platform.branches where parent_ref = $1 order by created_at, name`, [parentRef]);
  }

  async byName(parentRef: string, name: string): Promise<BranchRecord | undefined> {
    return this.sql.one<BranchRecord>(`select ${branchColumns} from platform.branches where parent_ref = $1 and name = $2`, [parentRef, name]);
  }

  /** By the branch's project ref, or by its id (the deprecated form). */
  async byIdOrRef(idOrRef: string): Promise<BranchRecord | undefined> {
    return this.sql.one<BranchRecord>(`select ${branchColumns} from platform.branches where branch_ref = $1 or id::text = $1`, [idOrRef]);
  }

  async update(id: string, fields: { name?: string; git_branch?: string; persistent?: boolean; status?: BranchStatus }): Promise<BranchRecord> {
    return (await this.sql.one<BranchRecord>(
      `update platform.branches set name = coalesce($2, name), git_branch = coalesce($3, git_branch), persistent = coalesce($4, persistent),
         status = coalesce($5, status), updated_at = now() where id = $1 returning ${branchColumns}`,
      [id, fields.name ?? null, fields.git_branch ?? null, fields.persistent ?? null, fields.status ?? null],
    ))!;
  }

  async scheduleDeletion(id: string, at: Date, closed: boolean): Promise<BranchRecord> {
    return (await this.sql.one<BranchRecord>(
      `update platform.branches set deletion_scheduled_at = $2, closed_for_deletion = $3, updated_at = now() where id = $1 returning ${branchColumns}`,
      [id, at.toISOString(), closed],
    ))!;
  }

  async cancelDeletion(id: string): Promise<void> {
    await this.sql.rows("update platform.branches set deletion_scheduled_at = null, closed_for_deletion = false, updated_at = now() where id = $1", [id]);
  }

  /** Branches whose scheduled deletion is due at `now`. */
  async dueForDeletion(now: Date): Promise<BranchRecord[]> {
    return this.sql.rows<BranchRecord>(`select ${branchColumns} from platform.branches where deletion_scheduled_at <= $1 order by deletion_scheduled_at`, [now.toISOString()]);
  }

  /** Recorded before the branch's project is removed (its branch row goes with it). */
  async recordPurged(b: BranchRecord, at: Date): Promise<void> {
    await this.sql.rows(
      `insert into platform.purged_branches (branch_ref, id, name, parent_ref, purged_at) values ($1, $2, $3, $4, $5)
       on conflict (branch_ref) do update set purged_at = excluded.purged_at`,
      [b.branch_ref, b.id, b.name, b.parent_ref, at.toISOString()],
    );
  }

  async purged(idOrRef: string): Promise<PurgedBranch | undefined> {
    return this.sql.one<PurgedBranch>(
      `select id::text, name, parent_ref, branch_ref, ${isoColumn("purged_at")} from platform.purged_branches where branch_ref = $1 or id::text = $1`,
      [idOrRef],
    );
  }

  async startRun(branchId: string, step: RunStep): Promise<ActionRun> {
    return (await this.sql.one<ActionRun>(
      `insert into platform.branch_action_runs (branch_id, step, status) values ($1, $2, 'RUNNING') returning ${runColumns}`,
      [branchId, step],
    ))!;
  }

  async finishRun(id: string, status: RunStatus, logs: string): Promise<void> {
    await this.sql.rows("update platform.branch_action_runs set status = $2, logs = $3, updated_at = now() where id = $1", [id, status, logs]);
  }

  async runs(branchId: string, offset: number, limit: number): Promise<ActionRun[]> {
    return this.sql.rows<ActionRun>(
      `select ${runColumns} from platform.branch_action_runs where branch_id = $1 order by created_at desc, id offset $2 limit $3`,
      [branchId, offset, limit],
    );
  }

  async runCount(branchId: string): Promise<number> {
    return (await this.sql.one<{ n: number }>("select count(*)::int as n from platform.branch_action_runs where branch_id = $1", [branchId]))!.n;
  }

  async run(branchId: string, runId: string): Promise<ActionRun | undefined> {
    return this.sql.one<ActionRun>(`select ${runColumns} from platform.branch_action_runs where branch_id = $1 and id::text = $2`, [branchId, runId]);
  }
}

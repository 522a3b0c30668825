// Branches stage: a branch's life after its create → removed with every branch made from it
// (also when its parent goes), or its deletion scheduled after a grace period with the database
// closed meanwhile, restored within it, and carried out once the grace period has ended (on the
// next request naming it, or by a periodic pass). Refusals are answered as outcomes.
import type { FastifyBaseLogger } from "fastify";
import { runEvery } from "../platform/periodic";
import type { Services } from "../services";
import type { BranchRecord, PurgedBranch } from "./branchStore";
import type { ProjectRecord } from "../tenants/projectStore";

/** How long a branch whose deletion is scheduled can be restored (the hosted grace period). */
export const deletionGraceMs = 60 * 60 * 1000;

/** Removes project `ref` after every branch made from it (and theirs): databases, roles, pools,
 * keys and records. False when another call removed the project first. */
export async function removeWithBranches(services: Services, ref: string): Promise<boolean> {
  for (const b of await services.branches.ofParent(ref)) await removeWithBranches(services, b.branch_ref);
  return services.provisioner.remove(ref);
}

export type LifecycleOutcome = { kind: "done" } | { kind: "refused"; message: string };

/** Schedules the branch's deletion; its database is closed until a restore or the removal. */
export async function scheduleDeletion(services: Services, branch: BranchRecord, project: ProjectRecord): Promise<LifecycleOutcome> {
  if (branch.deletion_scheduled_at !== null) {
    return { kind: "refused", message: `Branch ${branch.name} is already scheduled for deletion at ${branch.deletion_scheduled_at}: restore it, or delete it now with force=true` };
  }
  // A paused branch stays paused; an open one is closed now and opened again by a restore.
  const close = project.status === "ACTIVE_HEALTHY";
  if (close) await services.provisioner.pause(project.ref);
  await services.branches.scheduleDeletion(branch.id, new Date(services.config.now() + deletionGraceMs), close);
  return { kind: "done" };
}

export async function restoreBranch(services: Services, branch: BranchRecord): Promise<LifecycleOutcome> {
  if (branch.deletion_scheduled_at === null) return { kind: "refused", message: `Branch ${branch.name} is not scheduled for deletion: there is nothing to restore` };
  if (branch.closed_for_deletion) await services.provisioner.restore(branch.branch_ref);
  await services.branches.cancelDeletion(branch.id);
  return { kind: "done" };
}

/** Carries out the branch's scheduled deletion when its grace period has ended; true when it did. */
export async function purgeIfDue(services: Services, branch: BranchRecord): Promise<boolean> {
  if (branch.deletion_scheduled_at === null || Date.parse(branch.deletion_scheduled_at) > services.config.now()) return false;
  // Recorded first, so a restore that comes later can say what happened even if the removal is retried.
  await services.branches.recordPurged(branch, new Date(branch.deletion_scheduled_at));
  await removeWithBranches(services, branch.branch_ref);
  return true;
}

/** The periodic pass: every branch whose grace period has ended is removed. */
export async function purgeDueBranches(services: Services, log?: FastifyBaseLogger): Promise<void> {
  for (const branch of await services.branches.dueForDeletion(new Date(services.config.now()))) {
    try {
      await purgeIfDue(services, branch);
    } catch (e) {
      log?.warn({ err: e, ref: branch.branch_ref }, "removing a branch whose grace period ended failed; the next pass retries");
    }
  }
}

/** Runs `purgeDueBranches` every `everyMs` until the returned function is called. */
export function startBranchPurges(services: Services, log: FastifyBaseLogger, everyMs = 30_000): () => void {
  return runEvery(everyMs, () => purgeDueBranches(services, log));
}

export function purgedMessage(purged: PurgedBranch): string {
  const grace = `${deletionGraceMs / 60_000} minutes`;
  return `Branch ${purged.name} (${purged.branch_ref}) was deleted for good at ${purged.purged_at}, when its grace period of ${grace} ended: it can no longer be restored`;
}

// Routes (Management API): branches — each a project of its own made from its parent (a copy of
// its database with `with_data`, else its migrations replayed), its config, push, merge and reset
// run for real and reported as action runs, the schema difference as SQL, and deletion now or
// after a grace period in which a restore brings the branch back.
import { ApiError, forbidden } from "../http/apiError";
import { purgedMessage, purgeIfDue, removeWithBranches, restoreBranch, scheduleDeletion, type LifecycleOutcome } from "../branches/branchLifecycle";
import { newBranchPassword, replayMigrations, reportedRun, resetBranchDatabase, schemaDiff, unknownVersion } from "../branches/branchWork";
import type { ActionRun, BranchRecord } from "./branchStore";
import type { ProjectRecord } from "../tenants/projectStore";
import { grantReaches, requireProject } from "../http/access";
import { ok, type ApiArea, type Call, type Caller, type CallWith, type Schema } from "../http/operation";

function branchShape(b: BranchRecord, project: ProjectRecord | undefined): Schema<"BranchResponse"> {
  return {
    id: b.id,
    name: b.name,
    project_ref: b.branch_ref,
    parent_project_ref: b.parent_ref,
    is_default: false,
    ...(b.git_branch !== null ? { git_branch: b.git_branch } : {}),
    persistent: b.persistent,
    status: b.status,
    created_at: b.created_at,
    updated_at: b.updated_at,
    with_data: b.with_data,
    ...(b.deletion_scheduled_at !== null ? { deletion_scheduled_at: b.deletion_scheduled_at } : {}),
    ...(project ? { preview_project_status: project.status } : {}),
  };
}

export function runShape(run: ActionRun): Schema<"ActionRunResponse"> {
  const status = run.status;
  return {
    id: run.id,
    branch_id: run.branch_id,
    run_steps: [{ name: run.step, status, created_at: run.created_at, updated_at: run.updated_at }],
    git_config: null,
    workdir: null,
    check_run_id: null,
    created_at: run.created_at,
    updated_at: run.updated_at,
  };
}

type BranchCall = CallWith<{ branch_id_or_ref: string }>;

/** The parent project when the caller may see it (and the caller's credential reaches it). */
async function visibleParent(call: Caller, parentRef: string): Promise<ProjectRecord | undefined> {
  const parent = await call.services.projects.forUser(call.user.id, parentRef);
  return parent && grantReaches(call, parent.organization_slug) ? parent : undefined;
}

/** The branch named by `branch_id_or_ref`, its project and its parent, when the caller sees the
 * parent. One whose grace period has ended is removed now, and answers 404 saying so. */
async function requireBranch(call: BranchCall): Promise<{ branch: BranchRecord; project: ProjectRecord; parent: ProjectRecord }> {
  const idOrRef = call.params.branch_id_or_ref;
  let branch = await call.services.branches.byIdOrRef(idOrRef);
  if (branch && (await visibleParent(call, branch.parent_ref)) && (await purgeIfDue(call.services, branch))) branch = undefined;
  if (!branch) {
    const purged = await call.services.branches.purged(idOrRef);
    if (purged && (await visibleParent(call, purged.parent_ref))) throw new ApiError(404, purgedMessage(purged));
    throw forbidden();
  }
  const parent = await visibleParent(call, branch.parent_ref);
  const project = await call.services.projects.byRef(branch.branch_ref);
  if (!parent || !project || project.status === "GOING_DOWN") throw forbidden();
  return { branch, project, parent };
}

/** As `requireBranch`, for work on the branch's database, which a scheduled deletion has closed. */
async function requireLiveBranch(call: BranchCall): Promise<{ branch: BranchRecord; project: ProjectRecord; parent: ProjectRecord }> {
  const found = await requireBranch(call);
  if (found.branch.deletion_scheduled_at !== null) {
    throw new ApiError(400, `Branch ${found.branch.name} is scheduled for deletion at ${found.branch.deletion_scheduled_at}: restore it first`);
  }
  return found;
}

/** The parent's branches, after removing those whose grace period has ended. */
async function branchesOf(call: Caller, parentRef: string): Promise<BranchRecord[]> {
  const all = await call.services.branches.ofParent(parentRef);
  const kept: BranchRecord[] = [];
  for (const b of all) if (!(await purgeIfDue(call.services, b))) kept.push(b);
  return kept;
}

async function withProjects(call: Caller, branches: BranchRecord[]) {
  return Promise.all(branches.map(async (b) => branchShape(b, await call.services.projects.byRef(b.branch_ref))));
}

function runAnswer(run: ActionRun) {
  return ok({ workflow_run_id: run.id, message: "ok" as const }, 201);
}

/** The body's `migration_version`, refused with 400 when `source`'s history lacks it. */
async function migrationVersion(call: Caller & { body: Schema<"BranchActionBody"> | undefined }, source: ProjectRecord): Promise<string | undefined> {
  const version = call.body?.migration_version;
  const why = await unknownVersion(call.services, source, version);
  if (why !== undefined) throw new ApiError(400, why);
  return version;
}

function settled(outcome: LifecycleOutcome): void {
  switch (outcome.kind) {
    case "done":
      return;
    case "refused":
      throw new ApiError(400, outcome.message);
    default: {
      const never: never = outcome;
      throw new Error(`unhandled outcome ${String(never)}`);
    }
  }
}

async function createBranch(call: Call<"v1-create-a-branch">) {
  const parent = await requireProject(call);
  if (parent.status !== "ACTIVE_HEALTHY") throw new ApiError(400, `Project ${parent.ref} cannot be branched: its status is ${parent.status}`);
  const body = call.body;
  const same = (await branchesOf(call, parent.ref)).find((b) => b.name === body.branch_name);
  if (same) {
    const scheduled = same.deletion_scheduled_at === null ? "" : ` (scheduled for deletion at ${same.deletion_scheduled_at}: delete it with force=true to reuse the name)`;
    throw new ApiError(409, `Branch ${body.branch_name} already exists${scheduled}`);
  }
  const withData = body.with_data ?? false;
  const dbPass = newBranchPassword();
  const project = await call.services.provisioner.create({
    organizationSlug: parent.organization_slug,
    name: body.branch_name,
    region: parent.region,
    dbPass,
    parent: { record: parent, copy: withData },
  });
  const branch = await call.services.branches.insert({
    name: body.branch_name,
    parent_ref: parent.ref,
    branch_ref: project.ref,
    git_branch: body.git_branch ?? null,
    persistent: body.persistent ?? false,
    with_data: withData,
    db_pass: dbPass,
  });
  const run = await reportedRun(call.services, branch, withData ? "clone" : "migrate", async (log) => {
    if (withData) log.push(`database copied from ${parent.ref} with its data`);
    else await replayMigrations(call.services, parent, project, log);
  });
  const status = run.status === "EXITED" ? "MIGRATIONS_PASSED" : "MIGRATIONS_FAILED";
  return ok(branchShape(await call.services.branches.update(branch.id, { status }), project), 201);
}

export const branchesArea: ApiArea = {
  "v1-create-a-branch": createBranch,

  "v1-list-all-branches": async (call) => {
    const parent = await requireProject(call);
    return ok(await withProjects(call, await branchesOf(call, parent.ref)));
  },

  "v1-get-a-branch": async (call) => {
    const parent = await requireProject(call);
    const branch = (await branchesOf(call, parent.ref)).find((b) => b.name === call.params.name);
    if (!branch) throw new ApiError(404, `Branch ${call.params.name} not found`);
    return ok((await withProjects(call, [branch]))[0]);
  },

  "v1-get-a-branch-config": async (call) => {
    const { branch, project } = await requireBranch(call);
    const server = call.services.servers.get(project.server);
    const port = Number(/:(\d+)$/.exec(server.key)?.[1] ?? 5432);
    return ok({
      ref: project.ref,
      postgres_version: server.version,
      postgres_engine: server.version.split(".")[0]!,
      release_channel: "ga",
      status: project.status,
      db_host: server.key.replace(/:\d+$/, ""),
      db_port: port,
      db_user: project.owner_role,
      db_pass: branch.db_pass,
      jwt_secret: project.jwt_secret,
    });
  },

  "v1-update-a-branch-config": async (call) => {
    const { branch, project } = await requireBranch(call);
    const body = call.body;
    if (body.branch_name !== undefined && body.branch_name !== branch.name && (await call.services.branches.byName(branch.parent_ref, body.branch_name))) {
      throw new ApiError(409, `Branch ${body.branch_name} already exists`);
    }
    const updated = await call.services.branches.update(branch.id, { name: body.branch_name, git_branch: body.git_branch, persistent: body.persistent, status: body.status });
    return ok(branchShape(updated, project));
  },

  // As documented: deleted at once unless `force=false`, which schedules it after the grace period.
  "v1-delete-a-branch": async (call) => {
    const { branch, project } = await requireBranch(call);
    if (call.query.force === false) settled(await scheduleDeletion(call.services, branch, project));
    else await removeWithBranches(call.services, branch.branch_ref);
    return ok({ message: "ok" as const });
  },

  "v1-restore-a-branch": async (call) => {
    const { branch } = await requireBranch(call);
    settled(await restoreBranch(call.services, branch));
    return ok({ message: "Branch restoration initiated" as const });
  },

  "v1-disable-preview-branching": async (call) => {
    const parent = await requireProject(call);
    for (const b of await call.services.branches.ofParent(parent.ref)) await removeWithBranches(call.services, b.branch_ref);
    return ok({});
  },

  "v1-merge-a-branch": async (call) => {
    const { branch, project, parent } = await requireLiveBranch(call);
    const upTo = await migrationVersion(call, project);
    return runAnswer(await reportedRun(call.services, branch, "migrate", (log) => replayMigrations(call.services, project, parent, log, upTo)));
  },

  "v1-reset-a-branch": async (call) => {
    const { branch, project, parent } = await requireLiveBranch(call);
    const upTo = await migrationVersion(call, parent);
    return runAnswer(await reportedRun(call.services, branch, "migrate", (log) => resetBranchDatabase(call.services, parent, project, log, upTo)));
  },

  // No git here: the migrations pushed are the parent's that the branch lacks; its own stay.
  "v1-push-a-branch": async (call) => {
    const { branch, project, parent } = await requireLiveBranch(call);
    const upTo = await migrationVersion(call, parent);
    return runAnswer(await reportedRun(call.services, branch, "migrate", (log) => replayMigrations(call.services, parent, project, log, upTo)));
  },

  "v1-diff-a-branch": async (call) => {
    const { project, parent } = await requireLiveBranch(call);
    const included = (call.query.included_schemas ?? "public").split(",").map((x) => x.trim()).filter((x) => x !== "");
    return { status: 200, body: await schemaDiff(call.services, parent, project, included), contentType: "text/plain; charset=utf-8" };
  },

  "v1-list-action-runs": async (call) => {
    const project = await requireProject(call);
    const branch = await call.services.branches.byIdOrRef(project.ref);
    const offset = call.query.offset ?? 0;
    const limit = call.query.limit ?? 20;
    return ok(branch ? (await call.services.branches.runs(branch.id, offset, limit)).map(runShape) : []);
  },

  "v1-count-action-runs": async (call) => {
    const project = await requireProject(call);
    const branch = await call.services.branches.byIdOrRef(project.ref);
    const count = branch ? await call.services.branches.runCount(branch.id) : 0;
    return { status: 200, body: undefined, headers: { "x-total-count": String(count) } };
  },

  "v1-get-action-run": async (call) => {
    const project = await requireProject(call);
    const branch = await call.services.branches.byIdOrRef(project.ref);
    const run = branch && (await call.services.branches.run(branch.id, call.params.run_id));
    if (!run) throw new ApiError(404, `Action run ${call.params.run_id} not found`);
    return ok(runShape(run));
  },

  "v1-get-action-run-logs": async (call) => {
    const project = await requireProject(call);
    const branch = await call.services.branches.byIdOrRef(project.ref);
    const run = branch && (await call.services.branches.run(branch.id, call.params.run_id));
    if (!run) throw new ApiError(404, `Action run ${call.params.run_id} not found`);
    return { status: 200, body: run.logs, contentType: "text/plain; charset=utf-8" };
  },
};

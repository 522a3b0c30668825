// Routes (Management API): the project's migrations. POST applies the SQL and records it in one
// transaction as the owner role (a failure leaves neither); PUT records without applying;
// DELETE runs the recorded rollbacks of versions >= gte, newest first, and forgets them; the
// Idempotency-Key header makes a repeated POST or PUT record (and apply) once.
import { ApiError } from "../http/apiError";
import { MigrationHistory, type NewMigration } from "./migrationHistory";
import type { ProjectSession } from "../tenants/projectSession";
import type { ProjectRecord } from "../tenants/projectStore";
import { notInMigration, splitStatements } from "./sqlStatements";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Call, type Caller, type ProjectCall } from "../http/operation";
import { withProjectSql } from "./projectSql";

type MigrationCall = Call<"v1-apply-a-migration" | "v1-upsert-a-migration">;

const failure = "Failed to apply the migration";

/** The statements of a migration's SQL, refusing (when it is to be applied) what cannot run in
 * its transaction. */
async function migrationStatements(call: ProjectCall, text: string, apply: boolean): Promise<string[]> {
  const statements = await splitStatements(text);
  if (statements.length === 0) throw new ApiError(400, "The migration has no SQL statements");
  for (const statement of apply ? statements : []) {
    const reason = notInMigration(statement);
    if (reason === undefined) continue;
    throw new ApiError(
      400,
      `${reason} cannot be part of a migration: a migration runs in one transaction. Run it on its own with ` +
        `POST /v1/projects/${call.params.ref}/database/query, then record it with PUT /v1/projects/${call.params.ref}/database/migrations.`,
    );
  }
  return statements.map((s) => s.text);
}

async function newMigration(call: MigrationCall, apply: boolean): Promise<{ migration: NewMigration; statements: string[] }> {
  const body = call.body;
  const statements = await migrationStatements(call, body.query, apply);
  const rollback = body.rollback ? (await splitStatements(body.rollback)).map((s) => s.text) : [];
  const key = call.request.headers["idempotency-key"];
  return {
    statements,
    migration: { name: body.name ?? "", statements, rollback, createdBy: call.user.email, idempotencyKey: typeof key === "string" && key !== "" ? key : undefined },
  };
}

/** Runs `work` in one transaction as the project's owner, with the history table ready. */
async function changeHistory<T>(
  call: Caller,
  project: ProjectRecord,
  work: (history: MigrationHistory, session: ProjectSession) => Promise<T>,
  what = failure,
): Promise<T> {
  return withProjectSql(
    call,
    project,
    "owner",
    (session) =>
      session.transaction(async () => {
        const history = new MigrationHistory(session);
        await history.prepare();
        return work(history, session);
      }),
    what,
  );
}

async function record(call: MigrationCall, apply: boolean) {
  const project = await requireProject(call);
  const { migration, statements } = await newMigration(call, apply);
  await changeHistory(call, project, async (history, session) => {
    const earlier = migration.idempotencyKey === undefined ? undefined : await history.byIdempotencyKey(migration.idempotencyKey);
    if (earlier && apply) return;
    if (apply) for (const statement of statements) await session.run(statement);
    if (earlier) await history.replace(earlier.version, migration);
    else await history.insert(migration);
  });
  return ok({});
}

function notFound(version: string): ApiError {
  return new ApiError(404, `Migration ${version} not found`);
}

export const migrationsArea: ApiArea = {
  "v1-list-migration-history": async (call) => {
    const project = await requireProject(call);
    return ok(await withProjectSql(call, project, "owner", (session) => new MigrationHistory(session).list()));
  },
  "v1-apply-a-migration": (call) => record(call, true),
  "v1-upsert-a-migration": (call) => record(call, false),
  "v1-get-a-migration": async (call) => {
    const project = await requireProject(call);
    const version = call.params.version;
    const found = await withProjectSql(call, project, "owner", (session) => new MigrationHistory(session).get(version));
    if (!found) throw notFound(version);
    const { created_by, idempotency_key, ...rest } = found;
    return ok({ ...rest, ...(created_by !== null ? { created_by } : {}), ...(idempotency_key !== null ? { idempotency_key } : {}) });
  },
  "v1-patch-a-migration": async (call) => {
    const project = await requireProject(call);
    const version = call.params.version;
    const body = call.body;
    const rollback = body.rollback === undefined ? undefined : (await splitStatements(body.rollback)).map((s) => s.text);
    const changed = await changeHistory(call, project, (history) =>
      history.patch(version, { ...(body.name !== undefined ? { name: body.name } : {}), ...(rollback ? { rollback } : {}) }),
    );
    if (!changed) throw notFound(version);
    return ok({});
  },
  "v1-rollback-migrations": async (call) => {
    const project = await requireProject(call);
    const gte = call.query.gte;
    await changeHistory(
      call,
      project,
      async (history, session) => {
        const undone = await history.from(gte);
        const missing = undone.filter((m) => m.rollback.length === 0).map((m) => m.version);
        if (missing.length > 0) throw new ApiError(400, `Migrations without rollback statements cannot be rolled back: ${missing.join(", ")}`);
        for (const m of undone) for (const statement of m.rollback) await session.run(statement);
        await history.remove(undone.map((m) => m.version));
      },
      "Failed to roll back the migrations",
    );
    return ok({});
  },
};

// Routes (Management API): a project's data API settings (`postgrest`), database settings,
// read-only mode, database password, temporary login roles, connection pooler (the database
// router when it runs, which does not pool) and pgsodium root key. The work is in ../settings; these only find the project.
import { ApiError } from "../http/apiError";
import { databaseOf, serverKey } from "../platform/connectionUrl";
import { scramVerifier } from "../tenants/scramVerifier";
import { noRouterNote, pgbouncerConfig, poolerEntry, routerNote, type PoolerEntry, type RouterAddress } from "../pgRouter/poolerEntry";
import { projectPostgresConfig, updatePostgresConfig, type PostgresConfigState, type PostgresConfigTarget } from "../settings/postgresConfig";
import { onProjectLogin, projectPostgrestConfig, updatePostgrestConfig } from "../settings/postgrestConfig";
import type { ProjectRecord } from "../tenants/projectStore";
import { requireProject } from "../http/access";
import { ok, type AnswerOf, type ApiArea, type Caller } from "../http/operation";

function configTarget(call: Caller, project: ProjectRecord): PostgresConfigTarget {
  const { servers, projects, config, door } = call.services;
  const server = door.server(project.server);
  return {
    door: server,
    database: project.database_name,
    async soleTenant() {
      const counts = await projects.countByServer();
      if ((counts.get(project.server) ?? 0) !== 1) return false;
      const own = [project.database_name, "postgres", servers.templateDatabase];
      if (serverKey(config.platformDatabaseUrl) === project.server) own.push(databaseOf(config.platformDatabaseUrl));
      return (await server.databases.countOthers(own)) === 0;
    },
  };
}

/** The settings, naming in a header the ones written for the server's next start: the platform
 * does not restart servers. */
function withRestartNote({ config, pendingRestart }: PostgresConfigState, asked: boolean): AnswerOf<200, PostgresConfigState["config"]> {
  if (pendingRestart.length === 0) return ok(config);
  const unasked = asked ? "; restart_database was asked, but the platform does not restart servers: restart PostgreSQL to apply them" : "";
  return { status: 200, body: config, headers: { "x-restart-database": `required: ${pendingRestart.join(", ")} take effect when PostgreSQL restarts${unasked}` } };
}

/** The router's PRIMARY entry for the project (whether the owner's password is a SCRAM verifier
 * is read from the server's catalog). */
async function routerEntry(call: Caller, project: ProjectRecord, router: RouterAddress): Promise<PoolerEntry> {
  const scram = await call.services.door.server(project.server).roles.usesScram(project.owner_role);
  return poolerEntry(project, router, scram);
}

const noPooler =
  "No connection pooler is configured for this server: clients connect to PostgreSQL directly, and the data API uses its own pool (db_pool of /postgrest)";

/** pgsodium reads its root key once, at server start, through its getkey script: a key kept
 * here never reaches it, and nothing in the database is encrypted with it. */
async function pgsodiumNote(call: Caller, project: ProjectRecord): Promise<string> {
  const available = (await call.services.door.server(project.server).settings.availableExtension("pgsodium")) !== undefined;
  return available
    ? "stored only: pgsodium takes its root key from its getkey script at server start, not from this API"
    : "stored only: the pgsodium extension is not available on this server, so nothing is encrypted with this key";
}

const rootKeyPattern = /^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/;

export const projectSettingsArea: ApiArea = {
  "v1-get-pooler-config": async (call) => {
    const project = await requireProject(call);
    const router = call.services.databaseRouter;
    if (!router) return { status: 200, body: [], headers: { "x-pooler": noRouterNote } };
    return { status: 200, body: [await routerEntry(call, project, router)], headers: { "x-pooler": routerNote } };
  },

  "v1-update-pooler-config": async (call) => {
    await requireProject(call);
    const router = call.services.databaseRouter ? `; ${routerNote}` : "";
    throw new ApiError(400, `${noPooler}${router}; nothing was changed`);
  },

  "v1-get-project-pgbouncer-config": async (call) => {
    const project = await requireProject(call);
    const router = call.services.databaseRouter;
    if (!router) throw new ApiError(404, noPooler);
    return { status: 200, body: pgbouncerConfig(await routerEntry(call, project, router)), headers: { "x-pooler": routerNote } };
  },

  "v1-get-pgsodium-config": async (call) => {
    const project = await requireProject(call);
    const root_key = await call.services.databaseOptions.rootKey(project.ref);
    return { status: 200, body: { root_key }, headers: { "x-pgsodium": await pgsodiumNote(call, project) } };
  },

  "v1-update-pgsodium-config": async (call) => {
    const project = await requireProject(call);
    const { root_key } = call.body;
    if (!rootKeyPattern.test(root_key)) throw new ApiError(400, "root_key must be 32 bytes, as 64 hex digits or base64; nothing was changed");
    await call.services.databaseOptions.setRootKey(project.ref, root_key);
    return { status: 200, body: { root_key }, headers: { "x-pgsodium": await pgsodiumNote(call, project) } };
  },

  "v1-get-postgrest-service-config": async (call) => {
    const project = await requireProject(call);
    return ok(await projectPostgrestConfig(call.services, project));
  },

  "v1-update-postgrest-service-config": async (call) => {
    const project = await requireProject(call);
    const { settings, pools } = call.services;
    return ok(await updatePostgrestConfig(settings, pools, project, onProjectLogin(call.services, project, "owner"), call.body));
  },

  "v1-get-postgres-config": async (call) => {
    const project = await requireProject(call);
    return withRestartNote(await projectPostgresConfig(call.services.door.server(project.server), project), false);
  },

  "v1-update-postgres-config": async (call) => {
    const project = await requireProject(call);
    const body = call.body;
    const state = await updatePostgresConfig(configTarget(call, project), body);
    // Database settings reach new sessions only.
    await call.services.pools.changed(project.ref);
    return withRestartNote(state, body.restart_database === true);
  },

  "v1-get-readonly-mode-status": async (call) => {
    const project = await requireProject(call);
    return ok(call.services.readOnly.status(await call.services.readOnly.refresh(project)));
  },

  "v1-disable-readonly-mode-temporarily": async (call) => {
    const project = await requireProject(call);
    await call.services.readOnly.override(project);
    return ok({}, 201);
  },

  "v1-create-login-role": async (call) => {
    const project = await requireProject(call);
    const { read_only } = call.body;
    return ok(await call.services.loginRoles.create(project, read_only), 201);
  },

  "v1-delete-login-roles": async (call) => {
    const project = await requireProject(call);
    await call.services.loginRoles.dropForProject(project.ref);
    return ok({ message: "ok" as const });
  },

  "v1-update-database-password": async (call) => {
    const project = await requireProject(call);
    const { password } = call.body;
    await call.services.door.server(project.server).roles.setPassword(project.owner_role, scramVerifier(password));
    return ok({ message: `The password of the project's database role ${project.owner_role} was changed` });
  },
};

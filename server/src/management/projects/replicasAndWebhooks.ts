// Routes (Management API): read replicas and database webhooks, which need what a project server
// may not have. A standby replicates a whole PostgreSQL server, not one project's database, and
// projects share servers, so a per-project replica cannot be set up here: the answer says so.
// Database webhooks need the pg_net extension; it is created when the server offers it.
import { ApiError } from "../http/apiError";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";

const replicaRefusal =
  "Read replicas are not available for a project here: a PostgreSQL standby replicates a whole server (every project on it), not one project's database. Set up a streaming standby of the project's server with its operator; the server then serves reads from it (--replica-urls).";

export const replicasAndWebhooksArea: ApiArea = {
  "v1-setup-a-read-replica": async (call) => {
    await requireProject(call);
    throw new ApiError(400, replicaRefusal);
  },

  "v1-remove-a-read-replica": async (call) => {
    await requireProject(call);
    const { database_identifier: id } = call.body;
    throw new ApiError(404, `No read replica ${id}: this project has none (${replicaRefusal})`);
  },

  "v1-enable-database-webhook": async (call) => {
    const project = await requireProject(call);
    if (project.status !== "ACTIVE_HEALTHY") throw new ApiError(400, "The project is not active: restore it first");
    const server = call.services.door.server(project.server);
    const installed = (await server.settings.availableExtension("pg_net")) !== undefined;
    if (installed) await server.inside.createExtension(project.database_name, "pg_net");
    if (!installed) {
      throw new ApiError(400, "Database webhooks need the pg_net extension (HTTP requests from triggers), which is not installed on this project's PostgreSQL server; install it there (e.g. the postgresql-15-pg-net package) and call this again");
    }
    return ok(undefined, 201);
  },
};

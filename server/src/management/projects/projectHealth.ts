// Routes (Management API): the health of a project's services, measured now: `db` by a query on
// its database, `rest` by a GraphQL request through its data API pool, `db_postgres_user` by the
// owner role's right to log in, each within `timeout_ms`. Services this server does not run are
// reported unhealthy with an error saying so, never as healthy.
import { OperationTypeNode } from "graphql";
import { unreachable } from "../../../../src/util/invariant";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Caller } from "../http/operation";
import type { ProjectRecord } from "../tenants/projectStore";

const serviceNames = ["auth", "db", "db_postgres_user", "pooler", "realtime", "rest", "storage", "pg_bouncer"] as const;
type ServiceName = (typeof serviceNames)[number];

interface Health {
  name: ServiceName;
  healthy: boolean;
  status: "ACTIVE_HEALTHY" | "UNHEALTHY" | "COMING_UP";
  info?: { db_schema: string };
  error?: string;
}

function unhealthy(name: ServiceName, error: string): Health {
  return { name, healthy: false, status: "UNHEALTHY", error };
}

/** The probe's answer, or a refusal when it takes longer than `ms`. */
function withinTime<T>(work: Promise<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function probe(call: Caller, project: ProjectRecord, name: ServiceName, timeoutMs: number | undefined): Promise<Health> {
  if (project.status === "COMING_UP") return { name, healthy: false, status: "COMING_UP" };
  if (project.status !== "ACTIVE_HEALTHY") return unhealthy(name, `the project is ${project.status === "INACTIVE" ? "paused" : project.status}`);
  try {
    switch (name) {
      case "db": {
        // A session of the platform's read-only login: the database answers, as the tenant's.
        const limit = timeoutMs ?? call.services.pools.settings.statementTimeoutMs;
        await withinTime(call.services.logins.run(project, "read_only", limit, (session) => session.run("select 1")), timeoutMs);
        return { name, healthy: true, status: "ACTIVE_HEALTHY" };
      }
      case "db_postgres_user": {
        // Read from the server's shared catalog, not from the tenant's database.
        const can = await withinTime(call.services.door.server(project.server).roles.canLogIn(project.owner_role, project.database_name), timeoutMs);
        return can ? { name, healthy: true, status: "ACTIVE_HEALTHY" } : unhealthy(name, "the project's owner role cannot log in");
      }
      case "rest": {
        const entry = await call.services.pools.get(project.ref);
        const query = { query: "{ __typename }", variables: null, operationName: null };
        const outcome = await withinTime(entry!.database.resolve(OperationTypeNode.QUERY, "anon", { role: "anon" }, entry!.tuning.schemas, query), timeoutMs);
        return outcome.kind === "result"
          ? { name, healthy: true, status: "ACTIVE_HEALTHY", info: { db_schema: entry!.tuning.schemas.join(",") } }
          : unhealthy(name, `the GraphQL data API failed: ${outcome.kind}`);
      }
      case "auth":
      case "pooler":
      case "realtime":
      case "storage":
      case "pg_bouncer":
        return unhealthy(name, `${name} is not a service this server runs`);
      default:
        return unreachable(name, "service");
    }
  } catch (e) {
    return unhealthy(name, (e as Error).message);
  }
}

export const projectHealthArea: ApiArea = {
  "v1-get-services-health": async (call) => {
    const project = await requireProject(call);
    const services = call.query.services;
    const timeoutMs = call.query.timeout_ms;
    return ok(await Promise.all([...new Set(services)].map((name) => probe(call, project, name, timeoutMs))));
  },
};

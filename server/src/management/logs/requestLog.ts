// Logs stage: every answered request naming a project (its data API, or a Management API path
// with its ref or a branch's ref) → an edge_logs event: time, project, method, path (never the query string),
// status, duration and, for accepted data API calls, the role the request ran as.
// The hook is attached only to the routes that name a project, chosen once when each route is
// added, so a request pays for nothing but copying its fields.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import type { LogWriter, RequestEvent } from "./logWriter";

const refHost = /^([a-z]{20})\./;
const refOnly = /^[a-z]{20}$/;

type ProjectOf = (request: FastifyRequest) => string | undefined;

/** How a route names its project, or null for a route that names none. */
function projectOfRoute(url: string): { api: RequestEvent["api"]; ref: ProjectOf } | null {
  const param = (name: string) => (request: FastifyRequest) => (request.params as Record<string, string>)[name];
  if (url.startsWith("/v1/")) {
    if (url.includes(":ref")) return { api: "management", ref: param("ref") };
    // A branch named by its ref is a project of its own (the deprecated id form names none).
    if (url.includes(":branch_id_or_ref")) {
      const branch = param("branch_id_or_ref");
      return { api: "management", ref: (request) => { const b = branch(request); return b !== undefined && refOnly.test(b) ? b : undefined; } };
    }
    return null;
  }
  if (url.endsWith("/graphql/v1")) {
    const byPath = url.includes(":ref") ? param("ref") : null;
    return { api: "graphql", ref: byPath ?? ((request) => refHost.exec(request.hostname)?.[1]) };
  }
  return null;
}

function onResponseOf(writer: LogWriter, api: RequestEvent["api"], refOf: ProjectOf) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const ref = refOf(request);
    if (ref !== undefined) {
      const url = request.url;
      const query = url.indexOf("?");
      writer.add({
        projectRef: ref,
        timestamp: Date.now(),
        api,
        method: request.method,
        path: query < 0 ? url : url.slice(0, query),
        host: request.hostname,
        requestId: request.id,
        clientIp: request.ip,
        statusCode: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
        // Set by the data API once the request is identified.
        role: request.graphqlIdentity?.role ?? null,
      });
    }
    done();
  };
}

/** Must run before the routes are added: it hooks each route that names a project as it is added. */
export function registerRequestLog(fastify: FastifyInstance, writer: LogWriter): void {
  fastify.addHook("onRoute", (route: RouteOptions) => {
    const project = projectOfRoute(route.url);
    if (!project) return;
    const hook = onResponseOf(writer, project.api, project.ref);
    const existing = route.onResponse;
    route.onResponse = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
}

// Logs stage: every answered request naming a project (its data API, or a Management API path
// with its ref or a branch's ref) → an edge_logs event: time, project, method, path (never the query string),
// status, duration and, for accepted data API calls, the role of the key or JWT.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { LogWriter } from "./logWriter";

const refHost = /^([a-z]{20})\./;
const refOnly = /^[a-z]{20}$/;

function projectOf(request: FastifyRequest): { ref: string; api: "graphql" | "management" } | undefined {
  const params = request.params as Record<string, string> | undefined;
  const route = request.routeOptions.url ?? "";
  // A branch named by its ref is a project of its own (the deprecated id form names none).
  const branch = params?.["branch_id_or_ref"];
  const ref = params?.["ref"] ?? (branch !== undefined && refOnly.test(branch) ? branch : undefined);
  if (route.startsWith("/v1/")) return ref ? { ref, api: "management" } : undefined;
  if (route.endsWith("/graphql/v1")) {
    const byPath = ref ?? refHost.exec(request.hostname)?.[1];
    return byPath ? { ref: byPath, api: "graphql" } : undefined;
  }
  return undefined;
}

/** The role claim of the bearer JWT or apikey, read only after the request was accepted. */
function roleOf(request: FastifyRequest): string | null {
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1];
  const apiKey = request.headers["apikey"];
  const token = bearer ?? (typeof apiKey === "string" ? apiKey : undefined);
  const payload = token?.split(".")[1];
  if (!payload) return null;
  try {
    const role = (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { role?: unknown }).role;
    return typeof role === "string" ? role : null;
  } catch {
    return null;
  }
}

export function registerRequestLog(fastify: FastifyInstance, writer: LogWriter): void {
  fastify.addHook("onResponse", async (request: FastifyRequest, reply: FastifyReply) => {
    const project = projectOf(request);
    if (!project) return;
    const path = request.url.split("?")[0]!;
    const status = reply.statusCode;
    const role = project.api === "graphql" && status < 400 ? roleOf(request) : null;
    writer.add({
      source: "edge_logs",
      projectRef: project.ref,
      timestamp: new Date(),
      eventMessage: `${request.method} | ${status} | ${request.ip} | ${request.id} | ${path}`,
      metadata: {
        api: project.api,
        request: { method: request.method, path, host: request.hostname, id: request.id },
        response: { status_code: status },
        duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
        role,
      },
    });
  });
}

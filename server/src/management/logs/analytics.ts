// Routes (Management API): a project's logs and usage, from the rows the request log writes.
// `logs.all` runs the caller's SQL as a read-only role that sees only this project's log views.
import { ApiError } from "../http/apiError";
import { logRange } from "../logs/logRange";
import { defaultLogsSql } from "../logs/logQueries";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Call } from "../http/operation";

async function projectLogs(call: Call<"v1-get-project-logs">) {
  const project = await requireProject(call);
  const q = call.query;
  const range = logRange(q.iso_timestamp_start, q.iso_timestamp_end, call.services.config.now());
  if (range.kind === "refused") throw new ApiError(400, range.message);
  const sql = q.sql === undefined || q.sql.trim() === "" ? defaultLogsSql : q.sql;
  const outcome = await call.services.logs.run(project.ref, range.starts, range.ends, sql);
  if (outcome.kind === "refused") throw new ApiError(400, outcome.message);
  return ok({ result: outcome.rows });
}

export const analyticsArea: ApiArea = {
  "v1-get-project-logs": projectLogs,

  "v1-get-project-usage-api-count": async (call) => {
    const project = await requireProject(call);
    const interval = call.query.interval ?? "1day";
    const counts = await call.services.logs.apiCounts(project.ref, interval);
    // Only the GraphQL data API runs here: auth, realtime and storage requests are always 0.
    return ok({
      result: counts.map((c) => ({ timestamp: c.timestamp, total_auth_requests: 0, total_realtime_requests: 0, total_rest_requests: c.count, total_storage_requests: 0 })),
    });
  },

  "v1-get-project-usage-request-count": async (call) => {
    const project = await requireProject(call);
    return ok({ result: [{ count: await call.services.logs.requestCount(project.ref) }] });
  },

  "v1-get-project-function-combined-stats": async (call) => {
    const project = await requireProject(call);
    const { function_id: functionId, interval } = call.query;
    const known = (await call.services.functions.list(project.ref)).some((f) => f.id === functionId || f.slug === functionId);
    if (!known) throw new ApiError(404, `Function ${functionId} not found`);
    return ok({ result: await call.services.logs.functionStats(project.ref, functionId, interval) });
  },
};

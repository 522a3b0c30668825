// Routes (Management API): the caller's SQL snippets. The document lists and reads them; this
// server also takes `POST /v1/snippets` and `DELETE /v1/snippets/{id}` (added to the served
// document), since the hosted dashboard's own way of saving snippets is not part of the API.
// A snippet is stored text: saving one runs nothing.
import { ApiError } from "../http/apiError";
import { SnippetStore } from "../snippets/snippetStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type CallWith } from "../http/operation";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function pageSize(raw: unknown): number {
  if (raw === undefined) return 100;
  const limit = Number(raw);
  if (!/^\d+$/.test(String(raw)) || limit < 1 || limit > 100) throw new ApiError(400, `limit must be a whole number from 1 to 100, not "${String(raw)}"`);
  return limit;
}

function snippetId(call: CallWith<{ id: string }>): string {
  const id = call.params.id;
  if (!uuidPattern.test(id)) throw new ApiError(400, `"${id}" is not a snippet id (a UUID)`);
  return id;
}

export const snippetsArea: ApiArea = {
  "v1-list-all-snippets": async (call) => {
    const q = call.query;
    if (q.project_ref !== undefined) await requireProject({ ...call, params: { ref: q.project_ref } });
    if (q.cursor !== undefined && !uuidPattern.test(q.cursor)) throw new ApiError(400, `"${q.cursor}" is not a cursor this server handed out`);
    const page = await call.services.stores.snippets.list(call.user.id, {
      projectRef: q.project_ref,
      organizationSlug: call.grant?.organizationSlug,
      afterId: q.cursor,
      limit: pageSize(q.limit),
      sortBy: q.sort_by ?? "inserted_at",
      order: q.sort_order ?? "desc",
    });
    if (!page) throw new ApiError(400, `The cursor ${q.cursor} names no snippet of yours (it was deleted): list again from the start`);
    return ok(page.cursor === undefined ? { data: page.data } : page);
  },

  "v1-get-a-snippet": async (call) => {
    const snippet = await call.services.stores.snippets.get(call.user.id, snippetId(call), call.grant?.organizationSlug);
    if (!snippet) throw new ApiError(404, "No snippet of yours has this id");
    return ok(snippet);
  },

  "v1-create-a-snippet": async (call) => {
    const body = call.body;
    const project = await requireProject({ ...call, params: { ref: body.project_ref } });
    const snippet = {
      project_ref: project.ref,
      name: body.name,
      description: body.description ?? null,
      visibility: body.visibility ?? "user",
      favorite: body.favorite ?? false,
      sql: body.sql,
    };
    return ok(await call.services.stores.snippets.create(call.user.id, snippet), 201);
  },

  "v1-delete-a-snippet": async (call) => {
    const removed = await call.services.stores.snippets.remove(call.user.id, snippetId(call), call.grant?.organizationSlug);
    if (!removed) throw new ApiError(404, "No snippet of yours has this id");
    return ok(undefined);
  },
};

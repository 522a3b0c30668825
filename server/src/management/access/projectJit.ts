// Routes (Management API): just-in-time role access on a project (../settings/jitAccess.ts). The
// caller's own grants are those of the user behind the access token.
import { invariant } from "../../../../src/util/invariant";
import { bearerToken } from "../users/accessToken";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";

export const projectJitArea: ApiArea = {
  "v1-get-jit-access-config": async (call) => {
    const project = await requireProject(call);
    return ok({ state: (await call.services.jit.enabled(project.ref)) ? ("enabled" as const) : ("disabled" as const), appliedSuccessfully: true });
  },

  "v1-update-jit-access-config": async (call) => {
    const project = await requireProject(call);
    const { state } = call.body;
    await call.services.jit.setEnabled(project.ref, state === "enabled");
    return ok({ state, appliedSuccessfully: true });
  },

  "v1-get-jit-access": async (call) => {
    const project = await requireProject(call);
    const mine = (await call.services.jit.list(project.ref)).find((e) => e.user_id === call.user.id);
    return ok({ user_id: call.user.id, user_roles: mine?.user_roles ?? [] });
  },

  "v1-list-jit-access": async (call) => {
    const project = await requireProject(call);
    return ok({ items: await call.services.jit.list(project.ref) });
  },

  "v1-update-jit-access": async (call) => {
    const project = await requireProject(call);
    const { user_id, roles } = call.body;
    await call.services.jit.replace(project, user_id, roles);
    const entry = (await call.services.jit.list(project.ref)).find((e) => e.user_id === user_id);
    return ok({ user_id, user_roles: entry?.user_roles ?? [] });
  },

  "v1-authorize-jit-access": async (call) => {
    const project = await requireProject(call);
    const { role, rhost } = call.body;
    const bearer = bearerToken(call.request.headers.authorization);
    invariant(bearer.kind === "token", "calls are authenticated by an access token");
    const user_role = await call.services.jit.authorize(project, call.user.id, bearer.token, role, rhost);
    return ok({ user_id: call.user.id, user_role });
  },

  "v1-delete-jit-access": async (call) => {
    const project = await requireProject(call);
    await call.services.jit.revokeAll(project, call.params.user_id);
    return ok({});
  },
};

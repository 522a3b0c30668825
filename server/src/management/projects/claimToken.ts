// Routes (Management API): a project's claim token, with which another organization takes the
// project over (`/v1/organizations/{slug}/project-claim/{token}`, in projectClaim.ts).
import { ApiError } from "../http/apiError";
import { ClaimTokenStore } from "./claimTokenStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";

export const claimTokenArea: ApiArea = {
  "v1-get-project-claim-token": async (call) => {
    const project = await requireProject(call);
    const token = await call.services.stores.claimTokens.get(project.ref);
    if (!token) throw new ApiError(404, "The project has no live claim token: create one");
    return ok(token);
  },

  "v1-create-project-claim-token": async (call) => {
    const project = await requireProject(call);
    const token = await call.services.stores.claimTokens.create(project.ref, call.user.id);
    if (!token) throw new ApiError(409, "The project already has a live claim token (shown only when it was created): revoke it before creating another");
    return ok(token);
  },

  "v1-delete-project-claim-token": async (call) => {
    const project = await requireProject(call);
    if (!(await call.services.stores.claimTokens.revoke(project.ref))) throw new ApiError(404, "The project has no live claim token to revoke");
    return ok(undefined, 204);
  },
};

// Routes (Management API): a project's auth configuration, read and patched as one document.
// The body is validated field by field against the document's schema before this runs (unknown
// and read-only fields refused); a patch is merged into the stored fields and secrets are
// answered as stored. Of the fields, `saml_enabled` gates the SSO provider endpoints here; the
// rest configure services (mail, SMS, OAuth providers, hooks) this server does not run.
import { authConfigDocument, projectAuthConfig } from "../auth/authConfigDocument";
import { AuthConfigStore } from "./authConfigStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";

export const authConfigArea: ApiArea = {
  "v1-get-auth-service-config": async (call) => {
    const project = await requireProject(call);
    return ok(await projectAuthConfig(call.services.platform, project.id));
  },
  "v1-update-auth-service-config": async (call) => {
    const project = await requireProject(call);
    const stored = await call.services.stores.authConfig.merge(project.id, call.body);
    return ok(authConfigDocument(stored));
  },
};

// Routes (Management API): a project's secrets — bulk set, list (names and SHA-256 digests,
// never values) and bulk delete. Values are encrypted at rest with the server's secrets key.
import { ApiError } from "../http/apiError";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type ProjectCall } from "../http/operation";

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

async function secretsProject(call: ProjectCall) {
  const project = await requireProject(call);
  if (!call.services.secrets.enabled) {
    throw new ApiError(503, "Secrets are not available: this server was started without a secrets key (--secrets-key or --secrets-key-file), the key that encrypts them at rest");
  }
  return project;
}

export const secretsArea: ApiArea = {
  "v1-list-all-secrets": async (call) => {
    const project = await secretsProject(call);
    const secrets = await call.services.secrets.list(project.ref);
    return ok(secrets.map((s) => ({ name: s.name, value: s.digest, updated_at: s.updated_at })));
  },

  "v1-bulk-create-secrets": async (call) => {
    const project = await secretsProject(call);
    const secrets = call.body;
    for (const { name } of secrets) {
      if (name.toUpperCase().startsWith("SUPABASE_")) throw new ApiError(400, `Secret name ${name} must not start with the SUPABASE_ prefix`);
      if (!envName.test(name)) throw new ApiError(400, `Secret name "${name}" must be letters, digits and underscores, not starting with a digit`);
    }
    await call.services.secrets.set(project.ref, secrets);
    return ok({}, 201);
  },

  "v1-bulk-delete-secrets": async (call) => {
    const project = await secretsProject(call);
    const names = call.body;
    const missing = await call.services.secrets.remove(project.ref, names);
    return ok(missing.length === 0 ? {} : { missing });
  },
};

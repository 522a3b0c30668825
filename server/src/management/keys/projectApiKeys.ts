// Routes (Management API): a project's API keys — the legacy anon and service_role JWTs signed
// with the project's own secret, then its publishable and secret keys (routes/apiKeys.ts).
import { Keyring } from "../../keys";
import { requireProject } from "../http/access";
import { listedApiKeys } from "./apiKeyShapes";
import { ok, type ApiArea, type Schema } from "../http/operation";

export const projectApiKeysArea: ApiArea = {
  "v1-get-project-api-keys": async (call) => {
    const project = await requireProject(call);
    const keys = await new Keyring(project.jwt_secret).apiKeys();
    const legacy = (name: string, apiKey: string, description: string): Schema<"ApiKeyResponse"> => ({
      api_key: apiKey,
      id: name,
      type: "legacy",
      prefix: null,
      name,
      description,
      hash: null,
      secret_jwt_template: { role: name },
      inserted_at: project.created_at,
      updated_at: project.created_at,
    });
    return ok([
      legacy("anon", keys.anon, "Legacy anon API key: the anon role, subject to row level security"),
      legacy("service_role", keys.serviceRole, "Legacy service_role API key: bypasses row level security"),
      ...(await listedApiKeys(call, project)),
    ]);
  },
};

// Routes (Management API): a project's opaque API keys — publishable keys (the anon role) and
// secret keys (service_role, or the claims of their `secret_jwt_template`) in the hosted format,
// shown masked unless revealed — and the switch that turns its legacy JWT keys off. Every change
// bumps the project's key generation, so each server process refuses a removed key at once.
import { randomBytes } from "node:crypto";
import { apiRoles } from "../../keys";
import { ApiError } from "../http/apiError";
import { ApiKeyStore, type ApiKeyRecord, type ApiKeyType } from "./apiKeyStore";
import { changingKeys, readKeyState, setLegacyApiKeysEnabled } from "./keyStateStore";
import type { ProjectRecord } from "../tenants/projectStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Caller, type CallWith } from "../http/operation";
import { apiKeyShape } from "./apiKeyShapes";

function newKey(type: ApiKeyType): string {
  return `sb_${type}_${randomBytes(24).toString("base64url")}`;
}

/** A template's role must be one the data API runs requests as. */
function checkedTemplate(type: ApiKeyType, template: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (template === undefined || template === null) return null;
  if (type !== "secret") throw new ApiError(400, "secret_jwt_template applies to secret keys only");
  const role = template["role"] ?? "service_role";
  if (typeof role !== "string" || !(apiRoles as readonly string[]).includes(role)) {
    throw new ApiError(400, `secret_jwt_template.role must be one of ${apiRoles.join(", ")}`);
  }
  return template;
}

type KeyCall = CallWith<{ ref: string; id: string }>;

function noSuchKey(call: KeyCall, project: ProjectRecord): ApiError {
  return new ApiError(404, `No API key ${call.params.id} in project ${project.ref}`);
}

async function requireKey(call: KeyCall, project: ProjectRecord): Promise<ApiKeyRecord> {
  const key = await call.services.stores.apiKeys.get(project.id, call.params.id);
  if (!key) throw noSuchKey(call, project);
  return key;
}

async function refuseTakenName(store: ApiKeyStore, project: ProjectRecord, name: string, exceptId?: string): Promise<void> {
  if (await store.nameTaken(project.id, name, exceptId)) throw new ApiError(409, `An API key named ${name} already exists in this project`);
}

const legacyState = async (call: Caller, project: ProjectRecord) => ({ enabled: (await readKeyState(call.services.platform, project.id)).legacyApiKeysEnabled });

export const apiKeysArea: ApiArea = {
  "v1-create-project-api-key": async (call) => {
    const project = await requireProject(call);
    const body = call.body;
    const template = checkedTemplate(body.type, body.secret_jwt_template);
    const created = await changingKeys(call.services.platform, project.id, async (tx) => {
      const store = new ApiKeyStore(tx);
      await refuseTakenName(store, project, body.name);
      return store.insert(project.id, { type: body.type, name: body.name, description: body.description ?? null, api_key: newKey(body.type), secret_jwt_template: template });
    });
    // The key is shown whole once, when made.
    return ok(apiKeyShape(created, true), 201);
  },

  "v1-get-project-api-key": async (call) => {
    const project = await requireProject(call);
    return ok(apiKeyShape(await requireKey(call, project), call.query.reveal === true));
  },

  "v1-update-project-api-key": async (call) => {
    const project = await requireProject(call);
    const key = await requireKey(call, project);
    const body = call.body;
    const template = body.secret_jwt_template === undefined ? key.secret_jwt_template : checkedTemplate(key.type, body.secret_jwt_template);
    const updated = await changingKeys(call.services.platform, project.id, async (tx) => {
      const store = new ApiKeyStore(tx);
      if (body.name !== undefined) await refuseTakenName(store, project, body.name, key.id);
      const description = body.description === undefined ? key.description : body.description;
      const updated = await store.update(project.id, key.id, { name: body.name ?? key.name, description, secret_jwt_template: template });
      if (!updated) throw noSuchKey(call, project);
      return updated;
    });
    return ok(apiKeyShape(updated, call.query.reveal === true));
  },

  "v1-delete-project-api-key": async (call) => {
    const project = await requireProject(call);
    const key = await requireKey(call, project);
    const reason = call.query.reason ?? null;
    await changingKeys(call.services.platform, project.id, (tx) =>
      new ApiKeyStore(tx).remove(project.id, key.id, call.query.was_compromised === true, reason),
    );
    return ok(apiKeyShape(key, call.query.reveal === true));
  },

  "v1-get-project-legacy-api-keys": async (call) => ok(await legacyState(call, await requireProject(call))),

  "v1-update-project-legacy-api-keys": async (call) => {
    const project = await requireProject(call);
    await setLegacyApiKeysEnabled(call.services.platform, project.id, call.query.enabled === true);
    return ok(await legacyState(call, project));
  },
};

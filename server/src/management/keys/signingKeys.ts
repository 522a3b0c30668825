// Routes (Management API): a project's signing keys — made on standby (or in use) from a key
// jose generates or a private JWK the caller brings, moved through their states one allowed step
// at a time, deleted once revoked — and the project's JWT secret registered as a legacy key.
// Every change bumps the key generation: the data API trusts exactly the keys in use and
// previously used, in every server process, from the next request on.
import { randomUUID } from "node:crypto";
import { ApiError } from "../http/apiError";
import { checkedKeyMaterial, generateKeyMaterial, legacySecretJwk } from "./signingKeyMaterial";
import { changingKeys } from "./keyStateStore";
import type { ProjectRecord } from "../tenants/projectStore";
import { SigningKeyStore, type SigningKeyRecord, type SigningKeyStatus } from "./signingKeyStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Call, type CallWith, type ProjectCall } from "../http/operation";

/** The moves PATCH allows: a standby key is promoted (the key in use steps back), a retired key
 * is revoked, a revoked key is restored. Putting a key in use is the only way out of in_use. */
const allowedMoves: Record<SigningKeyStatus, readonly SigningKeyStatus[]> = {
  standby: ["in_use"],
  in_use: [],
  previously_used: ["revoked"],
  revoked: ["standby", "previously_used"],
};

type KeyCall = CallWith<{ ref: string; id: string }>;

export function signingKeyShape(key: SigningKeyRecord) {
  return { id: key.id, algorithm: key.algorithm, status: key.status, public_jwk: key.public_jwk, created_at: key.created_at, updated_at: key.updated_at };
}

async function requireKey(call: KeyCall, project: ProjectRecord, store = call.services.stores.signingKeys): Promise<SigningKeyRecord> {
  const key = await store.get(project.id, call.params.id);
  if (!key) throw new ApiError(404, `No signing key ${call.params.id} in project ${project.ref}`);
  return key;
}

async function create(call: Call<"v1-create-project-signing-key">) {
  const project = await requireProject(call);
  const body = call.body;
  const status = body.status ?? "standby";
  const id = body.private_jwk?.kid ?? randomUUID();
  const material = body.private_jwk
    ? await checkedKeyMaterial(id, body.algorithm, body.private_jwk)
    : await generateKeyMaterial(id, body.algorithm);
  const created = await changingKeys(call.services.platform, project.id, async (tx) => {
    const store = new SigningKeyStore(tx);
    if (await store.exists(id)) throw new ApiError(409, `A signing key with kid ${id} already exists`);
    if (status === "in_use") await store.retireInUse(project.id);
    return store.insert(project.id, { id, algorithm: body.algorithm, status, legacy: false, private_jwk: material.privateJwk, public_jwk: material.publicJwk });
  });
  return ok(signingKeyShape(created), 201);
}

function refuseMove(from: SigningKeyStatus, to: SigningKeyStatus): void {
  const allowed = allowedMoves[from];
  if (allowed.includes(to)) return;
  const hint = allowed.length > 0 ? `it can move to ${allowed.join(" or ")}` : "put another key in use to retire it";
  throw new ApiError(400, `A signing key cannot move from ${from} to ${to}: ${hint}`);
}

/** Runs `work` on the key as it is now, under the project's lock (another change may have moved it). */
async function withCurrentKey<T>(call: KeyCall, project: ProjectRecord, work: (store: SigningKeyStore, key: SigningKeyRecord) => Promise<T>): Promise<T> {
  return changingKeys(call.services.platform, project.id, async (tx) => {
    const store = new SigningKeyStore(tx);
    return work(store, await requireKey(call, project, store));
  });
}

async function update(call: Call<"v1-update-project-signing-key">) {
  const project = await requireProject(call);
  const { status } = call.body;
  const updated = await withCurrentKey(call, project, async (store, key) => {
    if (status === key.status) return key;
    refuseMove(key.status, status);
    if (status === "in_use") await store.retireInUse(project.id);
    return store.setStatus(project.id, key.id, status);
  });
  return ok(signingKeyShape(updated));
}

async function remove(call: Call<"v1-remove-project-signing-key">) {
  const project = await requireProject(call);
  const removed = await withCurrentKey(call, project, async (store, key) => {
    if (key.status !== "revoked") throw new ApiError(400, `Only a revoked signing key can be deleted; this one is ${key.status}`);
    await store.remove(project.id, key.id);
    return key;
  });
  return ok(signingKeyShape(removed));
}

async function registerLegacy(call: ProjectCall) {
  const project = await requireProject(call);
  const registered = await changingKeys(call.services.platform, project.id, async (tx) => {
    const store = new SigningKeyStore(tx);
    if (await store.legacy(project.id)) throw new ApiError(409, "The project's JWT secret is already registered as a signing key");
    await store.retireInUse(project.id);
    const id = randomUUID();
    return store.insert(project.id, { id, algorithm: "HS256", status: "in_use", legacy: true, private_jwk: { ...legacySecretJwk(project.jwt_secret), kid: id }, public_jwk: null });
  });
  return ok(signingKeyShape(registered), 201);
}

export const signingKeysArea: ApiArea = {
  "v1-create-project-signing-key": create,
  "v1-get-project-signing-keys": async (call) => {
    const project = await requireProject(call);
    return ok({ keys: (await call.services.stores.signingKeys.list(project.id)).map(signingKeyShape) });
  },
  "v1-get-project-signing-key": async (call) => ok(signingKeyShape(await requireKey(call, await requireProject(call)))),
  "v1-update-project-signing-key": update,
  "v1-remove-project-signing-key": remove,
  "v1-create-legacy-signing-key": registerLegacy,
  "v1-get-legacy-signing-key": async (call) => {
    const project = await requireProject(call);
    const key = await call.services.stores.signingKeys.legacy(project.id);
    if (!key) throw new ApiError(404, "The project's JWT secret is not registered as a signing key");
    return ok(signingKeyShape(key));
  },
};

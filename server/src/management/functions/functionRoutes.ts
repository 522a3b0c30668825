// Routes (Management API): a project's functions — deploy (multipart files), create and update
// (JSON source or an eszip bundle), bulk metadata edits, get, delete, and the stored body. The
// bundles are kept byte for byte; this server does not run them.
import { ApiError } from "../http/apiError";
import { badPath, bundleFileName, bundleSha256, multipartBody, type Bundle } from "../functions/bundle";
import { deployedFileName, deployedFileUrl, storedPath, type Deployment } from "../functions/deploymentPaths";
import { readDeploy } from "./functionUploads";
import { SourceUpload } from "../http/sourceUpload";
import type { FunctionEdit, FunctionRecord } from "./functionStore";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Call, type CallWith, type Schema } from "../http/operation";

/** A function as the hosted API answers it: its file paths as URLs under the deployment's base. */
function functionShape(ref: string, f: FunctionRecord) {
  const deployment: Deployment = { ref, id: f.id, version: f.version };
  return {
    id: f.id,
    slug: f.slug,
    name: f.name,
    status: f.status,
    version: f.version,
    created_at: f.created_at,
    updated_at: f.updated_at,
    verify_jwt: f.verify_jwt,
    import_map: f.import_map,
    entrypoint_path: deployedFileUrl(deployment, f.entrypoint_path),
    ...(f.import_map_path !== null ? { import_map_path: deployedFileUrl(deployment, f.import_map_path) } : {}),
    ezbr_sha256: f.ezbr_sha256,
  };
}

const notFound = (slug: string) => new ApiError(404, `Function ${slug} not found`);

/** The functions edited, or the refusal of the whole batch. */
function edited(outcome: FunctionRecord[] | { unknown: string } | { taken: true }): FunctionRecord[] {
  if (Array.isArray(outcome)) return outcome;
  if ("unknown" in outcome) throw notFound(outcome.unknown);
  throw new ApiError(409, "Another function of this project already has that slug");
}

async function existing(call: CallWith<{ ref: string; function_slug: string }>): Promise<{ ref: string; fn: FunctionRecord }> {
  const project = await requireProject(call);
  const slug = call.params.function_slug;
  const fn = await call.services.functions.get(project.ref, slug);
  if (!fn) throw notFound(slug);
  return { ref: project.ref, fn };
}

type SourceCall = Call<"v1-create-a-function" | "v1-update-a-function">;

/** A raw eszip upload, a text/plain source file (stored as the entrypoint, byte for byte, so the
 * entrypoint must be a bundle file name), or a JSON `body` (source text, stored as index.ts). */
function uploadedBundle(call: SourceCall, source: string | undefined, entrypoint: string): Bundle | undefined {
  if (Buffer.isBuffer(call.body)) return { kind: "eszip", content: call.body };
  if (call.body instanceof SourceUpload) {
    const checked = bundleFileName(entrypoint);
    if (checked.kind === "refused") throw new ApiError(400, checked.reason);
    if (checked.name !== entrypoint) throw new ApiError(400, `entrypoint_path "${entrypoint}" names the source file; send it as ${checked.name}`);
    return { kind: "files", files: [{ path: entrypoint, content: call.body.content }] };
  }
  return source === undefined ? undefined : { kind: "files", files: [{ path: "index.ts", content: Buffer.from(source, "utf8") }] };
}

/** The JSON body's fields; an upload (eszip or text/plain) has none. */
function jsonFields(call: SourceCall): SourceBody {
  return Buffer.isBuffer(call.body) || call.body instanceof SourceUpload ? {} : (call.body ?? {});
}

/** The paths a client sends back as it read them (file URLs under a deployment's base) → stored paths. */
function sentPaths<T extends { entrypoint_path?: string | undefined; import_map_path?: string | null | undefined }>(fields: T): T {
  return {
    ...fields,
    ...(typeof fields.entrypoint_path === "string" ? { entrypoint_path: storedPath(fields.entrypoint_path) } : {}),
    ...(typeof fields.import_map_path === "string" ? { import_map_path: storedPath(fields.import_map_path) } : {}),
  };
}

/** The JSON fields a create or an update may send (an update has no slug). */
type SourceBody = Partial<Schema<"V1CreateFunctionBody">>;

export const functionsArea: ApiArea = {
  "v1-list-all-functions": async (call) => {
    const project = await requireProject(call);
    return ok((await call.services.functions.list(project.ref)).map((f) => functionShape(project.ref, f)));
  },

  "v1-get-a-function": async (call) => {
    const { ref, fn } = await existing(call);
    return ok(functionShape(ref, fn));
  },

  "v1-create-a-function": async (call) => {
    const project = await requireProject(call);
    const q = call.query;
    const json = jsonFields(call);
    const slug = json.slug ?? q.slug;
    if (slug === undefined || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(slug)) throw new ApiError(400, "A function needs a slug: a letter, then letters, digits, _ or -");
    const entrypoint = q.entrypoint_path === undefined ? "index.ts" : storedPath(q.entrypoint_path);
    const why = badPath(entrypoint);
    if (why) throw new ApiError(400, why);
    const bundle = uploadedBundle(call, json.body, entrypoint);
    if (!bundle) throw new ApiError(400, "A function needs a body: JSON `body` source text, a text/plain source file or an application/vnd.denoland.eszip upload");
    const fields = {
      name: json.name ?? q.name ?? slug,
      verify_jwt: json.verify_jwt ?? q.verify_jwt ?? true,
      import_map: q.import_map ?? false,
      entrypoint_path: entrypoint,
      import_map_path: q.import_map_path === undefined ? null : storedPath(q.import_map_path),
      static_patterns: [],
    };
    const created = await call.services.functions.deploy(project.ref, slug, fields, bundle, bundleSha256(bundle), { mustBeNew: true });
    if (!created) throw new ApiError(409, `Function ${slug} already exists: deploy or update it instead`);
    return ok(functionShape(project.ref, created), 201);
  },

  "v1-deploy-a-function": async (call) => {
    const project = await requireProject(call);
    const deploy = await readDeploy(call.request);
    const { files } = deploy;
    const metadata = sentPaths(deploy.metadata);
    const slug = call.query.slug ?? metadata.name;
    if (slug === undefined || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(slug)) throw new ApiError(400, "A deploy needs a slug query parameter: a letter, then letters, digits, _ or -");
    if (files.length === 0) throw new ApiError(400, "A deploy needs at least one file part");
    if (!files.some((f) => f.path === metadata.entrypoint_path || metadata.entrypoint_path.endsWith(`/${f.path}`) || f.path.endsWith(`/${metadata.entrypoint_path}`))) {
      throw new ApiError(400, `The entrypoint ${metadata.entrypoint_path} is not among the uploaded files`);
    }
    const bundle: Bundle = { kind: "files", files };
    const sha256 = bundleSha256(bundle);
    const fields = {
      name: metadata.name ?? slug,
      verify_jwt: metadata.verify_jwt ?? true,
      import_map: metadata.import_map_path !== undefined,
      entrypoint_path: metadata.entrypoint_path,
      import_map_path: metadata.import_map_path ?? null,
      static_patterns: metadata.static_patterns ?? [],
    };
    if (call.query.bundleOnly === true) {
      // Checked and hashed, not stored: what a deploy of these files would record.
      const now = Date.now();
      return ok({ id: "", slug, status: "ACTIVE" as const, version: 0, created_at: now, updated_at: now, ...fields, import_map_path: fields.import_map_path ?? undefined, ezbr_sha256: sha256 }, 201);
    }
    const deployed = await call.services.functions.deploy(project.ref, slug, fields, bundle, sha256, { mustBeNew: false });
    return ok(functionShape(project.ref, deployed!), 201);
  },

  "v1-update-a-function": async (call) => {
    const { ref, fn } = await existing(call);
    const q = sentPaths(call.query);
    const json = jsonFields(call);
    const why = q.entrypoint_path === undefined ? undefined : badPath(q.entrypoint_path);
    if (why) throw new ApiError(400, why);
    const entrypoint = q.entrypoint_path ?? fn.entrypoint_path;
    const bundle = uploadedBundle(call, json.body, entrypoint);
    const fields: FunctionEdit = {
      ...(q.slug !== undefined ? { slug: q.slug } : {}),
      ...(json.name ?? q.name) !== undefined ? { name: (json.name ?? q.name)! } : {},
      ...(json.verify_jwt ?? q.verify_jwt) !== undefined ? { verify_jwt: (json.verify_jwt ?? q.verify_jwt)! } : {},
      ...(q.import_map !== undefined ? { import_map: q.import_map } : {}),
      ...(q.entrypoint_path !== undefined ? { entrypoint_path: q.entrypoint_path } : {}),
      ...(q.import_map_path !== undefined ? { import_map_path: q.import_map_path } : {}),
    };
    const outcome = await call.services.functions.edit(ref, [{ slug: fn.slug, fields, ...(bundle ? { bundle: { bundle, sha256: bundleSha256(bundle) } } : {}) }]);
    return ok(functionShape(ref, edited(outcome)[0]!));
  },

  "v1-bulk-update-functions": async (call) => {
    const project = await requireProject(call);
    const items = call.body.map(sentPaths);
    const edits = items.map(({ slug, name, status, verify_jwt, import_map, entrypoint_path, import_map_path, ezbr_sha256 }) => ({
      slug,
      fields: { name, status, verify_jwt, import_map, entrypoint_path, import_map_path, ezbr_sha256 },
    }));
    return ok({ functions: edited(await call.services.functions.edit(project.ref, edits)).map((f) => functionShape(project.ref, f)) });
  },

  "v1-delete-a-function": async (call) => {
    const { ref, fn } = await existing(call);
    await call.services.functions.remove(ref, fn.slug);
    return ok({});
  },

  "v1-get-a-function-body": async (call) => {
    const { ref, fn } = await existing(call);
    const files = await call.services.functions.files(fn.id);
    if (fn.bundle_kind === "eszip") {
      return { status: 200, body: files[0]!.content, contentType: "application/vnd.denoland.eszip" };
    }
    const deployment: Deployment = { ref, id: fn.id, version: fn.version };
    const metadata = {
      entrypoint_path: deployedFileUrl(deployment, fn.entrypoint_path),
      ...(fn.import_map_path !== null ? { import_map_path: deployedFileUrl(deployment, fn.import_map_path) } : {}),
      static_patterns: fn.static_patterns,
      verify_jwt: fn.verify_jwt,
      name: fn.name,
    };
    const named = files.map((f) => ({ path: deployedFileName(deployment, f.path), content: f.content }));
    const { contentType, body } = await multipartBody(metadata, named);
    return { status: 200, body, contentType };
  },
};

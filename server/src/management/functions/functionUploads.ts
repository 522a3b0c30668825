// Functions stage: the request bodies of function uploads → parsed before the handlers run:
// multipart deploys (read by the handler, part by part), raw eszip bundles (as a Buffer) and a
// function's source sent as text/plain (a SourceUpload, its bytes untouched).
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { DomainError, invalid } from "../errors/domainError";
import { bundleFileName, type BundleFile, type BundleMetadata } from "./bundle";
import { storedPath } from "./deploymentPaths";
import { SourceUpload } from "../http/sourceUpload";

/** The size limit of one uploaded file (the hosted limit of a function bundle). */
export const maxFileBytes = 20 * 1024 * 1024;

export async function registerFunctionUploads(fastify: FastifyInstance): Promise<void> {
  await fastify.register(multipart, { preservePath: true, limits: { fileSize: maxFileBytes, files: 1000, fields: 10 }, throwFileSizeLimit: true });
  fastify.addContentTypeParser("application/vnd.denoland.eszip", { parseAs: "buffer", bodyLimit: maxFileBytes }, (_request, body, done) =>
    done(null, body),
  );
  // Only operations whose document accepts text/plain take it; any other answers 415 as before.
  fastify.addContentTypeParser("text/plain", { parseAs: "buffer", bodyLimit: maxFileBytes }, (request, body, done) => {
    const content = (request.routeOptions.schema?.body as { content?: Record<string, unknown> } | undefined)?.content;
    if (content?.["text/plain"] === undefined) {
      done(Object.assign(new Error(`Unsupported Media Type: text/plain is not accepted by ${request.method} ${request.url.split("?")[0]}`), { statusCode: 415 }));
      return;
    }
    done(null, new SourceUpload(body as Buffer));
  });
}

/** A deploy's parts: the `metadata` JSON (a field, or a part with a file name) and every other
 * file part, in the order sent. */
export async function readDeploy(request: FastifyRequest): Promise<{ metadata: BundleMetadata; files: BundleFile[] }> {
  if (!request.isMultipart()) throw invalid("A deploy is multipart/form-data with a metadata field and file parts");
  let metadata: unknown;
  const files: BundleFile[] = [];
  try {
    for await (const part of request.parts()) {
      if (part.fieldname === "metadata") {
        // Some clients send it as a Blob: a part with a file name (`blob`) and a JSON type.
        const text = part.type === "file" ? (await part.toBuffer()).toString("utf8") : String(part.value);
        try {
          metadata = JSON.parse(text);
        } catch {
          throw invalid("The metadata field must be JSON");
        }
      } else if (part.type === "file") {
        // A name under a deployment's base (a bundle downloaded, then deployed again) is relative to it.
        const checked = bundleFileName(storedPath(part.filename));
        if (checked.kind === "refused") throw invalid(checked.reason);
        if (files.some((f) => f.path === checked.name)) throw invalid(`file path "${part.filename}" names ${checked.name}, which is already in the bundle`);
        files.push({ path: checked.name, content: await part.toBuffer() });
      }
    }
  } catch (e) {
    if (e instanceof DomainError) throw e;
    throw invalid(`The multipart body could not be read: ${(e as Error).message}`);
  }
  return { metadata: checkMetadata(metadata), files };
}

function checkMetadata(value: unknown): BundleMetadata {
  if (typeof value !== "object" || value === null) throw invalid("A deploy needs a metadata field: a JSON object with entrypoint_path");
  const m = value as Record<string, unknown>;
  const text = (key: string, required: boolean) => {
    // The CLI sends "" for an absent import map.
    if ((m[key] === undefined || m[key] === "") && !required) return undefined;
    if (typeof m[key] !== "string" || m[key] === "") throw invalid(`metadata.${key} must be a non-empty string`);
    return m[key] as string;
  };
  if (m["verify_jwt"] !== undefined && typeof m["verify_jwt"] !== "boolean") throw invalid("metadata.verify_jwt must be a boolean");
  const patterns = m["static_patterns"];
  if (patterns !== undefined && !(Array.isArray(patterns) && patterns.every((p) => typeof p === "string"))) {
    throw invalid("metadata.static_patterns must be an array of strings");
  }
  return {
    entrypoint_path: text("entrypoint_path", true)!,
    import_map_path: text("import_map_path", false),
    static_patterns: patterns as string[] | undefined,
    verify_jwt: m["verify_jwt"] as boolean | undefined,
    name: text("name", false),
  };
}

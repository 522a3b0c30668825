// Functions stage: what a deploy uploads → a bundle (files or one eszip) with its SHA-256, and a
// stored bundle → the multipart answer `functions download` reads. Bundles are never run here.
import { createHash } from "node:crypto";

export interface BundleFile {
  path: string;
  content: Buffer;
}

export type Bundle = { kind: "files"; files: BundleFile[] } | { kind: "eszip"; content: Buffer };

export interface BundleMetadata {
  entrypoint_path: string;
  import_map_path?: string | undefined;
  static_patterns?: string[] | undefined;
  verify_jwt?: boolean | undefined;
  name?: string | undefined;
}

/** Paths as clients send them (relative, forward slashes); none may climb out of the bundle.
 * Checks an entrypoint named in metadata; a stored file's name goes through `bundleFileName`. */
export function badPath(path: string): string | undefined {
  if (path.length === 0 || path.length > 1024) return "a file path must have 1 to 1024 characters";
  if (path.includes("\0") || path.includes("\\")) return `file path "${path}" has a NUL or a backslash`;
  if (path.split("/").some((segment) => segment === "..")) return `file path "${path}" climbs out of the bundle with ..`;
  return undefined;
}

export type FileNameCheck = { kind: "name"; name: string } | { kind: "refused"; reason: string };

/** A bundle file's name as stored and handed back on download: relative to the bundle, `.` and
 * empty segments dropped (`./a//b.ts` is `a/b.ts`). An absolute name, a drive letter or a `..`
 * segment would let a client that writes the files out (the CLI's download) write outside the
 * bundle's folder, so they are refused, not rewritten. */
export function bundleFileName(path: string): FileNameCheck {
  const bad = badPath(path);
  if (bad !== undefined) return { kind: "refused", reason: bad };
  if (path.startsWith("/")) return { kind: "refused", reason: `file path "${path}" is absolute; send it relative to the bundle` };
  if (/^[A-Za-z]:/.test(path)) return { kind: "refused", reason: `file path "${path}" starts with a drive letter; send it relative to the bundle` };
  const name = path.split("/").filter((segment) => segment !== "" && segment !== ".").join("/");
  if (name === "") return { kind: "refused", reason: `file path "${path}" names no file` };
  return { kind: "name", name };
}

/** SHA-256 over the bundle: the eszip's bytes, or each file (sorted by path) as path, size, bytes. */
export function bundleSha256(bundle: Bundle): string {
  const hash = createHash("sha256");
  if (bundle.kind === "eszip") return hash.update(bundle.content).digest("hex");
  for (const file of [...bundle.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`${file.path}\0${file.content.length}\0`);
    hash.update(file.content);
  }
  return hash.digest("hex");
}

/** The multipart/form-data answer of `/body`: a `metadata` JSON part and one `file` part per file. */
export async function multipartBody(metadata: BundleMetadata, files: BundleFile[]): Promise<{ contentType: string; body: Buffer }> {
  const form = new FormData();
  form.append("metadata", JSON.stringify({ ...metadata, deno2_entrypoint_path: metadata.entrypoint_path }));
  for (const file of files) form.append("file", new Blob([file.content]), file.path);
  const response = new Response(form);
  return { contentType: response.headers.get("content-type")!, body: Buffer.from(await response.arrayBuffer()) };
}

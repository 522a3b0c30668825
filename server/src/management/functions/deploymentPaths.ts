// Functions stage (pure): a deployment (project ref, function id, version) and a stored file path →
// the names the hosted API gives that file: a file URL under `/tmp/user_fn_<ref>_<id>_<version>/source/`
// for `entrypoint_path` and `import_map_path`, the same base as a plain path for the `/body` parts
// (clients run `fileURLToPath()` on the first and take file names relative to the base); and a
// path a client sends back in either form → the stored, relative one.
import { fileURLToPath, pathToFileURL } from "node:url";

export interface Deployment {
  ref: string;
  id: string;
  version: number;
}

export function deploymentBase(d: Deployment): string {
  return `/tmp/user_fn_${d.ref}_${d.id}_${d.version}/source/`;
}

/** `file:///tmp/user_fn_<ref>_<id>_<version>/source/<path>`. */
export function deployedFileUrl(d: Deployment, path: string): string {
  return pathToFileURL(deployedFileName(d, path)).href;
}

/** The file's name in a `/body` answer: the deployment's base and the stored path. */
export function deployedFileName(d: Deployment, path: string): string {
  return `${deploymentBase(d)}${path}`;
}

const underBase = /^\/tmp\/user_fn_[^/]+\/source\/(.+)$/;

/** A path as clients send it: one under any deployment's base (a file URL or a plain path) is
 * taken relative to that base; any other is kept as sent. */
export function storedPath(sent: string): string {
  let path = sent;
  if (sent.startsWith("file:")) {
    try {
      path = fileURLToPath(sent);
    } catch {
      return sent;
    }
  }
  return underBase.exec(path)?.[1] ?? sent;
}

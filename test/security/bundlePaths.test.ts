// The hostile-tenant suite, function bundles: a file name a client would write outside the
// bundle's folder on download (absolute, a drive letter, a `..` segment) is refused with a 400
// and nothing is stored; harmless spellings are stored normalized and handed back as stored;
// names stored before this rule are rewritten by migration 720.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleSha256 } from "../../server/src/management/functions/bundle";
import { adminQuery, api, createProject, startPlatform, type TestPlatform } from "../management/support";

let platform: TestPlatform;
let token: string;
let ref: string;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const authorization = () => ({ authorization: `Bearer ${token}` });

async function deploy(slug: string, files: Record<string, string>, entrypoint: string): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append("metadata", JSON.stringify({ entrypoint_path: entrypoint, name: slug }));
  for (const [path, content] of Object.entries(files)) form.append("file", new Blob([content]), path);
  const r = await fetch(`${platform.baseUrl}/v1/projects/${ref}/functions/deploy?slug=${slug}`, { method: "POST", headers: authorization(), body: form });
  return { status: r.status, body: await r.json() };
}

/** The file names of a function's downloaded body, relative to the deployment's base as clients
 * take them (parts are named `/tmp/user_fn_<ref>_<id>_<version>/source/<name>`), and its metadata. */
async function downloaded(slug: string): Promise<{ names: string[]; metadata: any }> {
  const r = await fetch(`${platform.baseUrl}/v1/projects/${ref}/functions/${slug}/body`, { headers: authorization() });
  expect(r.status).toBe(200);
  const raw = await r.text();
  const names = [...raw.matchAll(/name="file"; filename="([^"]*)"/g)].map((m) => m[1]!.replace(/^\/tmp\/user_fn_[^/]+\/source\//, ""));
  const metadata = JSON.parse(/name="metadata"\r\n\r\n(.*)\r\n/.exec(raw)![1]!);
  return { names, metadata };
}

const listed = async () => (await call("GET", `/v1/projects/${ref}/functions`)).body.map((f: { slug: string; version: number }) => `${f.slug}@${f.version}`);

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("bundles@example.com");
  ref = (await createProject(platform.baseUrl, token, "bundles")).ref;
});
afterAll(async () => {
  if (ref) await call("DELETE", `/v1/projects/${ref}`);
  await platform?.close();
});

describe("bundle file names", () => {
  it("refuses absolute names, drive letters and .. segments in a deploy, storing nothing", async () => {
    expect((await deploy("kept", { "index.ts": "export {}" }, "index.ts")).status).toBe(201);
    const before = await listed();
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ "/etc/passwd": "x", "index.ts": "x" }, "index.ts", /file path "\/etc\/passwd" is absolute/],
      [{ "//server/share/x.ts": "x" }, "//server/share/x.ts", /is absolute/],
      [{ "C:/Windows/win.ini": "x", "index.ts": "x" }, "index.ts", /file path "C:\/Windows\/win.ini" starts with a drive letter/],
      [{ "c:index.ts": "x" }, "c:index.ts", /starts with a drive letter/],
      [{ "lib/../../x.ts": "x" }, "lib/../../x.ts", /climbs out of the bundle/],
      [{ "lib\\..\\x.ts": "x" }, "lib\\..\\x.ts", /backslash/],
      [{ "./index.ts": "x", "index.ts": "y" }, "index.ts", /file path "index.ts" names index.ts, which is already in the bundle/],
      [{ "./": "x" }, "./", /names no file/],
    ];
    for (const [files, entrypoint, message] of cases) {
      for (const slug of ["kept", "fresh"]) {
        const r = await deploy(slug, files, entrypoint);
        expect(r.status, JSON.stringify(files)).toBe(400);
        expect(r.body.message).toMatch(message);
      }
    }
    expect(await listed()).toEqual(before);
    expect((await downloaded("kept")).names).toEqual(["index.ts"]);
  });

  it("refuses them as the entrypoint a text/plain source is stored under", async () => {
    const upload = (method: string, path: string) =>
      fetch(`${platform.baseUrl}${path}`, { method, headers: { ...authorization(), "content-type": "text/plain" }, body: "export {}" });
    const before = await listed();
    for (const entrypoint of ["/etc/passwd", "C:/boot.ini", "./main.ts"]) {
      const created = await upload("POST", `/v1/projects/${ref}/functions?slug=plain&entrypoint_path=${encodeURIComponent(entrypoint)}`);
      expect(created.status, entrypoint).toBe(400);
      const patched = await upload("PATCH", `/v1/projects/${ref}/functions/kept?entrypoint_path=${encodeURIComponent(entrypoint)}`);
      expect(patched.status, entrypoint).toBe(400);
    }
    expect(await listed()).toEqual(before);
  });

  it("stores harmless spellings normalized and hands back exactly what it stored", async () => {
    const r = await deploy("tidy", { "./index.ts": "main", "lib//util.ts": "util", "lib/./deep/./x.ts": "x" }, "./index.ts");
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const files = [
      { path: "index.ts", content: Buffer.from("main") },
      { path: "lib/util.ts", content: Buffer.from("util") },
      { path: "lib/deep/x.ts", content: Buffer.from("x") },
    ];
    expect(r.body.ezbr_sha256).toBe(bundleSha256({ kind: "files", files }));
    expect((await downloaded("tidy")).names).toEqual(["index.ts", "lib/deep/x.ts", "lib/util.ts"]);
  });

  it("rewrites names stored before the rule (migration 720)", async () => {
    const [fn] = await adminQuery<{ id: string }>(
      platform.platformUrl,
      `insert into platform.functions (project_ref, slug, name, entrypoint_path, import_map_path, bundle_kind, ezbr_sha256)
       values ($1, 'legacy', 'legacy', '/srv/index.ts', 'C:/srv/import_map.json', 'files', 'old') returning id::text`,
      [ref],
    );
    const stored: [string, string][] = [
      ["/srv/index.ts", "main"],
      ["C:/srv/import_map.json", "{}"],
      ["/etc/passwd", "root:x:0:0"],
      ["etc/passwd", "already relative"],
      ["./lib//util.ts", "util"],
      ["/", "nothing"],
    ];
    for (const [path, content] of stored) {
      await adminQuery(platform.platformUrl, "insert into platform.function_files (function_id, path, content) values ($1, $2, $3)", [fn!.id, path, Buffer.from(content)]);
    }
    // Runs migration 720 again on this platform, as a server started on a database made before it does.
    await adminQuery(platform.platformUrl, "delete from public.platform_migrations where version = 720");
    const second = await startPlatform({ platformDatabase: platform.platformDatabase });
    await second.close({ keepDatabase: true });

    const { names, metadata } = await downloaded("legacy");
    expect(names).toEqual(["etc/passwd", "lib/util.ts", "srv/import_map.json", "srv/index.ts"]);
    // Answered as file URLs under the deployment's base, as the hosted API answers them.
    expect(metadata.entrypoint_path).toMatch(/^file:\/\/\/tmp\/user_fn_[^/]+\/source\/srv\/index\.ts$/);
    expect(metadata.import_map_path).toMatch(/^file:\/\/\/tmp\/user_fn_[^/]+\/source\/srv\/import_map\.json$/);
    const files = await adminQuery<{ path: string; content: Buffer }>(platform.platformUrl, "select path, content from platform.function_files where function_id = $1", [fn!.id]);
    expect(files.find((f) => f.path === "etc/passwd")!.content.toString()).toBe("already relative");
    const got = (await call("GET", `/v1/projects/${ref}/functions/legacy`)).body;
    expect(got.ezbr_sha256).toBe(bundleSha256({ kind: "files", files }));
  });
});

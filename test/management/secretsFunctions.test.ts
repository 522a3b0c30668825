// A project's secrets and functions over real HTTP: secrets stored sealed and answered by digest
// only, refused names, bulk delete; functions deployed as multipart bundles and read back byte
// for byte.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretCipher } from "../../server/src/management/secrets/secretCipher";
import { adminQuery, api, startPlatform, testSecretsKey, type TestPlatform } from "./support";

let platform: TestPlatform;
let token: string;
let ref: string;

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("fn@example.com");
  const slug = (await call("POST", "/v1/organizations", { name: "Fn Org" })).body.slug;
  ref = (await call("POST", "/v1/projects", { name: "fn", organization_slug: slug, db_pass: "pw-fn-1", region: "us-east-1" })).body.ref;
});
afterAll(async () => {
  await call("DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

describe("secrets", () => {
  it("stores values sealed and answers names with the SHA-256 digest only", async () => {
    const set = await call("POST", `/v1/projects/${ref}/secrets`, [
      { name: "OPENAI_API_KEY", value: "sk-very-secret" },
      { name: "STRIPE_KEY", value: "whsec_other" },
    ]);
    expect(set.status).toBe(201);
    const listed = await call("GET", `/v1/projects/${ref}/secrets`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((s: { name: string }) => s.name)).toEqual(["OPENAI_API_KEY", "STRIPE_KEY"]);
    expect(listed.body[0].value).toBe(createHash("sha256").update("sk-very-secret").digest("hex"));
    expect(JSON.stringify(listed.body)).not.toContain("sk-very-secret");

    const rows = await adminQuery(platform.platformUrl, "select * from platform.project_secrets where name = 'OPENAI_API_KEY'");
    expect(JSON.stringify(rows)).not.toContain("sk-very-secret");
    // Nowhere at rest: no row of any platform table, nor of the request logs, has the value in clear.
    const tables = await adminQuery(platform.platformUrl, "select format('%I.%I', schemaname, tablename) as t from pg_tables where schemaname in ('platform', 'public')");
    for (const { t } of tables) {
      const [hit] = await adminQuery(platform.platformUrl, `select count(*)::int as n from ${t} x where x::text like '%sk-very-secret%'`);
      expect(hit.n, t).toBe(0);
    }
    const logged = await call("GET", `/v1/projects/${ref}/analytics/endpoints/logs.all?sql=${encodeURIComponent("select event_message, metadata from edge_logs")}`);
    expect(logged.status).toBe(200);
    expect(JSON.stringify(logged.body.result)).toContain(`/v1/projects/${ref}/secrets`);
    expect(JSON.stringify(logged.body)).not.toContain("sk-very-secret");
    expect(Buffer.from(rows[0].ciphertext).toString("utf8")).not.toContain("sk-very");
    const cipher = new SecretCipher(testSecretsKey);
    expect(cipher.open({ iv: rows[0].iv, ciphertext: rows[0].ciphertext, authTag: rows[0].auth_tag })).toBe("sk-very-secret");
  });

  it("replaces a value on a second set", async () => {
    expect((await call("POST", `/v1/projects/${ref}/secrets`, [{ name: "STRIPE_KEY", value: "new" }])).status).toBe(201);
    const listed = await call("GET", `/v1/projects/${ref}/secrets`);
    expect(listed.body.find((s: { name: string }) => s.name === "STRIPE_KEY").value).toBe(createHash("sha256").update("new").digest("hex"));
  });

  it("refuses SUPABASE_ names, bad names and bad bodies, storing none of the batch", async () => {
    for (const body of [
      [{ name: "OK_ONE", value: "1" }, { name: "SUPABASE_URL", value: "x" }],
      [{ name: "OK_ONE", value: "1" }, { name: "1BAD", value: "x" }],
      [{ name: "OK_ONE" }],
      { name: "OK_ONE", value: "1" },
    ]) {
      const r = await call("POST", `/v1/projects/${ref}/secrets`, body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(typeof r.body.message).toBe("string");
    }
    const r = await call("POST", `/v1/projects/${ref}/secrets`, [{ name: "SUPABASE_URL", value: "x" }]);
    expect(r.body.message).toMatch(/SUPABASE_/);
    const names = (await call("GET", `/v1/projects/${ref}/secrets`)).body.map((s: { name: string }) => s.name);
    expect(names).toEqual(["OPENAI_API_KEY", "STRIPE_KEY"]);
  });

  it("deletes in bulk and names the ones that were not there", async () => {
    const r = await call("DELETE", `/v1/projects/${ref}/secrets`, ["STRIPE_KEY", "NEVER_SET"]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ missing: ["NEVER_SET"] });
    expect((await call("GET", `/v1/projects/${ref}/secrets`)).body.map((s: { name: string }) => s.name)).toEqual(["OPENAI_API_KEY"]);
  });

  it("answers 403 for another user's project", async () => {
    const other = await platform.token("other@example.com");
    const r = await api(platform.baseUrl, other, "GET", `/v1/projects/${ref}/secrets`);
    expect(r.status).toBe(403);
  });
});

async function deploy(slug: string, files: Record<string, Buffer | string>, metadata: unknown, metadataAsBlob = false): Promise<{ status: number; body: any }> {
  const form = new FormData();
  const text = typeof metadata === "string" ? metadata : JSON.stringify(metadata);
  // As the MCP server sends it: a Blob, so a part with the file name "blob".
  if (metadataAsBlob) form.append("metadata", new Blob([text], { type: "application/json" }));
  else form.append("metadata", text);
  for (const [path, content] of Object.entries(files)) form.append("file", new Blob([content]), path);
  const r = await fetch(`${platform.baseUrl}/v1/projects/${ref}/functions/deploy?slug=${slug}`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: r.status, body: await r.json() };
}

describe("functions", () => {
  const binary = Buffer.from([0, 1, 2, 250, 251, 252, 13, 10, 0]);
  const source = "Deno.serve(() => new Response('héllo'))\n";

  it("deploys a multipart bundle and answers its body byte for byte", async () => {
    const r = await deploy("hello-world", { "hello-world/index.ts": source, "hello-world/data.bin": binary }, { entrypoint_path: "hello-world/index.ts", verify_jwt: false, name: "Hello" });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const base = `/tmp/user_fn_${ref}_${r.body.id}_1/source/`;
    expect(r.body).toMatchObject({ slug: "hello-world", name: "Hello", status: "ACTIVE", version: 1, verify_jwt: false, entrypoint_path: `file://${base}hello-world/index.ts` });
    expect(r.body.ezbr_sha256).toMatch(/^[0-9a-f]{64}$/);

    const body = await fetch(`${platform.baseUrl}/v1/projects/${ref}/functions/hello-world/body`, { headers: { authorization: `Bearer ${token}`, accept: "multipart/form-data" } });
    expect(body.status).toBe(200);
    expect(body.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    const form = await body.formData();
    expect(JSON.parse(form.get("metadata") as string)).toMatchObject({ entrypoint_path: `file://${base}hello-world/index.ts`, verify_jwt: false });
    const files = form.getAll("file") as File[];
    expect(files.map((f) => f.name).sort()).toEqual([`${base}hello-world/data.bin`, `${base}hello-world/index.ts`]);
    const byName = new Map(await Promise.all(files.map(async (f) => [f.name, Buffer.from(await f.arrayBuffer())] as const)));
    expect(byName.get(`${base}hello-world/data.bin`)!.equals(binary)).toBe(true);
    expect(byName.get(`${base}hello-world/index.ts`)!.toString("utf8")).toBe(source);
    const stored = await adminQuery(platform.platformUrl, "select entrypoint_path from platform.functions where id = $1", [r.body.id]);
    expect(stored).toEqual([{ entrypoint_path: "hello-world/index.ts" }]);
  });

  it("takes a metadata part sent as a Blob (with a file name) as the metadata", async () => {
    const r = await deploy("blob-meta", { "index.ts": source, "deno.json": "{}" }, { entrypoint_path: "index.ts", import_map_path: "deno.json", name: "blob-meta" }, true);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const base = `/tmp/user_fn_${ref}_${r.body.id}_1/source/`;
    expect(r.body).toMatchObject({ slug: "blob-meta", version: 1, entrypoint_path: `file://${base}index.ts`, import_map_path: `file://${base}deno.json` });
    const files = await adminQuery(platform.platformUrl, "select path from platform.function_files where function_id = $1 order by path", [r.body.id]);
    expect(files).toEqual([{ path: "deno.json" }, { path: "index.ts" }]);
    const bad = await deploy("blob-bad", { "index.ts": source }, "{not json", true);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("The metadata field must be JSON");
    expect((await call("DELETE", `/v1/projects/${ref}/functions/blob-meta`)).status).toBe(200);
  });

  it("bumps the version on a new deploy, not on a metadata edit", async () => {
    const again = await deploy("hello-world", { "index.ts": "export {}" }, { entrypoint_path: "index.ts" });
    expect(again.body.version).toBe(2);
    const listed = await call("GET", `/v1/projects/${ref}/functions`);
    expect(listed.body).toHaveLength(1);
    const id = listed.body[0].id;
    expect(listed.body[0].entrypoint_path).toBe(`file:///tmp/user_fn_${ref}_${id}_2/source/index.ts`);
    // Sent back as it was read: the URL is taken for the stored path it names.
    const bulk = await call("PUT", `/v1/projects/${ref}/functions`, [{ ...listed.body[0], name: "Renamed", verify_jwt: true }]);
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(bulk.body.functions[0]).toMatchObject({ name: "Renamed", version: 2, verify_jwt: true, entrypoint_path: listed.body[0].entrypoint_path });
    expect(await adminQuery(platform.platformUrl, "select entrypoint_path from platform.functions where id = $1", [id])).toEqual([{ entrypoint_path: "index.ts" }]);
    const patched = await call("PATCH", `/v1/projects/${ref}/functions/hello-world`, { body: "export const x = 1;" });
    expect(patched.body).toMatchObject({ name: "Renamed", version: 3, entrypoint_path: `file:///tmp/user_fn_${ref}_${id}_3/source/index.ts` });
    expect((await call("GET", `/v1/projects/${ref}/functions/hello-world`)).body.version).toBe(3);
  });

  it("creates from JSON source and from an eszip, whose body comes back as uploaded", async () => {
    const json = await call("POST", `/v1/projects/${ref}/functions`, { slug: "from-json", name: "From JSON", body: source });
    expect(json.status, JSON.stringify(json.body)).toBe(201);
    const dup = await call("POST", `/v1/projects/${ref}/functions`, { slug: "from-json", name: "again", body: "x" });
    expect(dup.status).toBe(409);
    const eszip = await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/functions?slug=zipped&name=Zipped`, binary.toString("latin1"), {
      "content-type": "application/vnd.denoland.eszip",
    });
    expect(eszip.status, JSON.stringify(eszip.body)).toBe(201);
    const raw = await fetch(`${platform.baseUrl}/v1/projects/${ref}/functions/zipped/body`, { headers: { authorization: `Bearer ${token}` } });
    expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(binary.toString("latin1"), "utf8"))).toBe(true);
  });

  it("creates and updates from a text/plain source file, stored and answered byte for byte", async () => {
    // CRLF, a byte-order mark and a byte that is not UTF-8: nothing may be decoded on the way.
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("export default 'é';\r\n"), Buffer.from([0xff, 0x0a])]);
    const post = (path: string, method: string, body: Buffer) =>
      fetch(`${platform.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" }, body });
    const created = await post(`/v1/projects/${ref}/functions?slug=plain-text&entrypoint_path=main.ts`, "POST", raw);
    expect(created.status).toBe(201);
    const made = (await created.json()) as { id: string };
    const base = `/tmp/user_fn_${ref}_${made.id}_`;
    expect(made).toMatchObject({ slug: "plain-text", name: "plain-text", version: 1, entrypoint_path: `file://${base}1/source/main.ts` });
    const stored = async () => {
      const form = await (await fetch(`${platform.baseUrl}/v1/projects/${ref}/functions/plain-text/body`, { headers: { authorization: `Bearer ${token}` } })).formData();
      const files = form.getAll("file") as File[];
      return files.map((f) => f.name).concat(await Promise.all(files.map(async (f) => Buffer.from(await f.arrayBuffer()).toString("hex"))));
    };
    expect(await stored()).toEqual([`${base}1/source/main.ts`, raw.toString("hex")]);
    const next = Buffer.from("export default 2;\n");
    const updated = await post(`/v1/projects/${ref}/functions/plain-text`, "PATCH", next);
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as { version: number }).version).toBe(2);
    expect(await stored()).toEqual([`${base}2/source/main.ts`, next.toString("hex")]);
    const bad = await post(`/v1/projects/${ref}/functions?slug=climbs&entrypoint_path=../x.ts`, "POST", next);
    expect(bad.status).toBe(400);
    // Other operations still refuse text/plain, as they always did.
    const secrets = await post(`/v1/projects/${ref}/secrets`, "POST", Buffer.from("A=b"));
    expect(secrets.status).toBe(415);
    expect(((await secrets.json()) as { message: string }).message).toMatch(/text\/plain/);
    expect((await call("GET", `/v1/projects/${ref}/functions/climbs`)).status).toBe(404);
    expect((await call("DELETE", `/v1/projects/${ref}/functions/plain-text`)).status).toBe(200);
  });

  it("refuses bad deploys and unknown functions, changing nothing", async () => {
    const before = (await call("GET", `/v1/projects/${ref}/functions`)).body;
    const cases = [
      await deploy("bad-one", { "index.ts": "x" }, "{not json"),
      await deploy("bad-one", { "index.ts": "x" }, { verify_jwt: true }),
      await deploy("bad-one", { "index.ts": "x" }, { entrypoint_path: "main.ts" }),
      await deploy("bad-one", { "../escape.ts": "x" }, { entrypoint_path: "../escape.ts" }),
      await deploy("1bad", { "index.ts": "x" }, { entrypoint_path: "index.ts" }),
    ];
    for (const r of cases) {
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(typeof r.body.message).toBe("string");
    }
    expect((await call("PUT", `/v1/projects/${ref}/functions`, [{ ...before[0], name: "X" }, { ...before[0], slug: "nope" }])).status).toBe(404);
    expect((await call("GET", `/v1/projects/${ref}/functions/nope`)).status).toBe(404);
    const taken = await api(platform.baseUrl, token, "PATCH", `/v1/projects/${ref}/functions/zipped?slug=hello-world`, { name: "clash" });
    expect(taken.status, JSON.stringify(taken.body)).toBe(409);
    expect((await call("DELETE", `/v1/projects/${ref}/functions/nope`)).status).toBe(404);
    expect((await call("GET", `/v1/projects/${ref}/functions`)).body).toEqual(before);
  });

  it("deletes a function and its files", async () => {
    expect((await call("DELETE", `/v1/projects/${ref}/functions/from-json`)).status).toBe(200);
    expect((await call("GET", `/v1/projects/${ref}/functions/from-json`)).status).toBe(404);
    const left = await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.function_files ff join platform.functions f on f.id = ff.function_id where f.slug = 'from-json'");
    expect(left[0].n).toBe(0);
  });
});

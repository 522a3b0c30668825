// SQL snippets over HTTP: saved (an addition of this server), read, listed per user in keyset
// pages sorted by name or insertion time, deleted; bad input refused with nothing stored; another
// user sees none of them; the real supabase CLI's `snippets list` and `snippets download`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startPlatform, type TestPlatform } from "./support";
import { supabaseCli } from "./supabaseCliRunner";

let platform: TestPlatform;
let token: string;
let ref: string;

beforeAll(async () => {
  platform = await startPlatform();
  token = await platform.token("snippets@example.com");
  const org = await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: "Snippets" });
  ref = (await api(platform.baseUrl, token, "POST", "/v1/projects", { name: "snip", organization_slug: org.body.slug, region: "us-east-1", db_pass: "snip-password" })).body.ref;
});
afterAll(async () => {
  await api(platform.baseUrl, token, "DELETE", `/v1/projects/${ref}`);
  await platform.close();
});

const call = (method: string, path: string, body?: unknown) => api(platform.baseUrl, token, method, path, body);
const listAll = async (query: string) => {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await call("GET", `/v1/snippets?${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    names.push(...page.body.data.map((s: { name: string }) => s.name));
    cursor = page.body.cursor;
  } while (cursor);
  return names;
};

describe("snippets", () => {
  it("saves, reads, pages and deletes a user's snippets", async () => {
    const ids: string[] = [];
    for (const name of ["charlie", "alpha", "bravo"]) {
      const made = await call("POST", "/v1/snippets", { project_ref: ref, name, sql: `select '${name}'` });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body).toMatchObject({ name, type: "sql", visibility: "user", favorite: false, project: { name: "snip" }, content: { sql: `select '${name}'` } });
      ids.push(made.body.id);
    }
    expect(await listAll("sort_by=name&sort_order=asc&limit=2")).toEqual(["alpha", "bravo", "charlie"]);
    expect(await listAll("sort_by=name&sort_order=desc&limit=1")).toEqual(["charlie", "bravo", "alpha"]);
    expect(await listAll("sort_by=inserted_at&sort_order=asc&limit=2")).toEqual(["charlie", "alpha", "bravo"]);
    expect(await listAll(`project_ref=${ref}`)).toEqual(["bravo", "alpha", "charlie"]);
    const one = await call("GET", `/v1/snippets/${ids[1]}`);
    expect(one.body).toMatchObject({ id: ids[1], name: "alpha", content: { sql: "select 'alpha'", schema_version: "1.0" } });
    expect(one.body.owner.id).toBeTypeOf("number");

    const other = await platform.token("stranger@example.com");
    expect((await api(platform.baseUrl, other, "GET", "/v1/snippets")).body.data).toEqual([]);
    expect((await api(platform.baseUrl, other, "GET", `/v1/snippets/${ids[1]}`)).status).toBe(404);
    expect((await api(platform.baseUrl, other, "DELETE", `/v1/snippets/${ids[1]}`)).status).toBe(404);

    expect((await call("DELETE", `/v1/snippets/${ids[1]}`)).status).toBe(200);
    expect((await call("GET", `/v1/snippets/${ids[1]}`)).status).toBe(404);
    const stale = await call("GET", `/v1/snippets?cursor=${ids[1]}`);
    expect(stale.status).toBe(400);
    expect(stale.body.message).toContain("names no snippet");
    for (const id of [ids[0], ids[2]]) expect((await call("DELETE", `/v1/snippets/${id}`)).status).toBe(200);
  });

  it("refuses bad input and stores nothing", async () => {
    const refusals: [string, string, unknown, string][] = [
      ["POST", "/v1/snippets", { project_ref: ref, name: "", sql: "select 1" }, "name"],
      ["POST", "/v1/snippets", { project_ref: ref, name: "x" }, "sql"],
      ["POST", "/v1/snippets", { project_ref: ref, name: "x", sql: "select 1", visibility: "everyone" }, "visibility"],
      ["POST", "/v1/snippets", { project_ref: ref, name: "x", sql: "select 1", colour: "red" }, "additional properties"],
      ["GET", "/v1/snippets?limit=0", undefined, "limit"],
      ["GET", "/v1/snippets?limit=abc", undefined, "limit"],
      ["GET", "/v1/snippets?sort_by=size", undefined, "sort_by"],
      ["GET", "/v1/snippets?cursor=nonsense", undefined, "cursor"],
      ["GET", "/v1/snippets/not-a-uuid", undefined, "id"],
    ];
    for (const [method, path, body, reason] of refusals) {
      const answer = await call(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(400);
      expect(answer.body.message, `${method} ${path}`).toContain(reason);
    }
    expect((await call("POST", "/v1/snippets", { project_ref: "zzzzzzzzzzzzzzzzzzzz", name: "x", sql: "select 1" })).status).toBe(403);
    expect((await call("GET", "/v1/snippets")).body.data).toEqual([]);
  });

  it("lists and downloads snippets with the real supabase CLI", async () => {
    const made = await call("POST", "/v1/snippets", { project_ref: ref, name: "cli snippet", description: "for the CLI", sql: "select 42 as answer" });
    const cli = supabaseCli(platform.baseUrl, token);
    try {
      const listed = await cli.run("snippets", "list", `--project-ref=${ref}`, "--output-format", "json");
      expect(listed.code, listed.stderr + listed.stdout).toBe(0);
      expect(listed.stdout).toContain("cli snippet");
      expect(listed.stdout).toContain(made.body.id);
      const downloaded = await cli.run("snippets", "download", made.body.id, `--project-ref=${ref}`);
      expect(downloaded.code, downloaded.stderr + downloaded.stdout).toBe(0);
      expect(downloaded.stdout).toContain("select 42 as answer");
    } finally {
      cli.close();
      await call("DELETE", `/v1/snippets/${made.body.id}`);
    }
  });
});

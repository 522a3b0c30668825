// Smoke test of the demo command as `make demo` runs it: it starts a throwaway cluster and the
// server, prints the address and keys, answers /health and a query, and Ctrl-C removes it all.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildDashboard, buildServer } from "../../server/build.mjs";
import { freshDatabase, type TestDatabase } from "../harness/db";

const bin = fileURLToPath(new URL("../../server/bin.js", import.meta.url));
let db: TestDatabase;
let installed = false;

beforeAll(async () => {
  db = await freshDatabase();
  installed = ((await db.query("select 1 from pg_available_extensions where name = 'pg_graphql'")).rowCount ?? 0) > 0;
  await Promise.all([buildServer(), buildDashboard()]);
});
afterAll(async () => db.drop());

/** Whether the process exits (or is only a zombie left to reap) within `timeoutMs`. */
async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let state: string;
    try {
      state = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0] ?? "";
    } catch {
      return true;
    }
    if (state === "Z") return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function waitForBanner(child: ReturnType<typeof spawn>, timeoutMs: number): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no banner within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const fields = new Map<string, string>();
      for (const line of out.split("\n")) {
        const m = /^\s*([A-Za-z_ ]+[A-Za-z]): (\S+)$/.exec(line);
        if (m) fields.set(m[1]!.trim(), m[2]!);
      }
      if (fields.has("secrets key file")) {
        clearTimeout(timer);
        resolve(fields);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`demo exited with ${code} before it was ready:\n${out}`));
    });
  });
}

it("starts, answers, and on Ctrl-C stops and removes its cluster", async (ctx) => {
  if (!installed) ctx.skip();
  const child = spawn(process.execPath, [bin, "demo", "--port", "0", "--log-level", "warn"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    const fields = await waitForBanner(child, 90_000);
    const endpoint = fields.get("GraphQL URL")!;
    const anonKey = fields.get("anon key")!;
    const clusterDir = new URL(fields.get("Database URL")!).searchParams.get("host")!;
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql\/v1$/);
    expect(fields.get("service_role key")).toMatch(/^ey/);
    expect(existsSync(clusterDir)).toBe(true);
    const postmaster = Number(readFileSync(`${clusterDir}/data/postmaster.pid`, "utf8").split("\n")[0]);

    const health = await fetch(endpoint.replace("/graphql/v1", "/health"));
    expect(health.status).toBe(200);
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", apikey: anonKey },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { __typename: "Query" } });

    // The Management API runs beside it, with a first project whose own endpoint answers.
    expect(fields.get("access token")).toMatch(/^sbp_[a-f0-9]{40}$/);
    // The dashboard's address signs in by its fragment, which the browser never sends.
    const dashboard = fields.get("dashboard")!;
    expect(dashboard).toBe(`${endpoint.replace("/graphql/v1", "/dashboard/")}#token=${fields.get("access token")}`);
    const page = await fetch(dashboard);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const project = await fetch(fields.get("project GraphQL")!, {
      method: "POST",
      headers: { "content-type": "application/json", apikey: fields.get("project anon key")! },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(await project.json()).toEqual({ data: { __typename: "Query" } });

    // Both databases hold the demo schema; the printed user tokens see ada's draft, anon does not.
    const titles = async (url: string, apiKey: string, bearer?: string) => {
      const answer = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", apikey: apiKey, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: JSON.stringify({ query: "{ blogPostCollection(orderBy: [{ title: AscNullsLast }]) { edges { node { title } } } }" }),
      });
      const json = (await answer.json()) as any;
      return json.data.blogPostCollection.edges.map((e: any) => e.node.title as string);
    };
    for (const [url, key, user] of [
      [endpoint, anonKey, fields.get("user JWT")!],
      [fields.get("project GraphQL")!, fields.get("project anon key")!, fields.get("project user JWT")!],
    ] as const) {
      expect(await titles(url, key)).toEqual(["A-0", "Note G", "On the Difference Engine"]);
      expect(await titles(url, key, user)).toEqual(["A-0", "Draft: looms", "Note G", "On the Difference Engine"]);
    }
    // Secrets work: the key file is made in the demo's folder.
    const ref = fields.get("project ref")!;
    const secrets = await fetch(`${fields.get("Management API")}/projects/${ref}/secrets`, { headers: { authorization: `Bearer ${fields.get("access token")}` } });
    expect(secrets.status).toBe(200);
    expect(fields.get("secrets key file")).toBe(`${clusterDir}/secrets.key`);

    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(existsSync(clusterDir)).toBe(false);
    expect(await gone(postmaster, 10_000)).toBe(true); // the cluster's server is gone too
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});

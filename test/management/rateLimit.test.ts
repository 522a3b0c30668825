// The per-user rate limit over real HTTP, counted in the platform database: two server processes
// (this one with a fake clock, and a child process whose clock is fixed at the same moment)
// share one count across the user's tokens; the 61st call in minute M is 429, and so is every
// call until minute M+1 ends; the headers say how many calls are left and when the window ends.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { clusterInfo } from "../harness/db";
import { buildPrivateBundle, startChild, type ChildServer } from "./childServer";
import { api, clusterUrl, startPlatform, type TestPlatform } from "./support";

// A minute of our own, 30 s in: its counters cannot meet another test's.
const minute = 29_000_000;
const start = minute * 60_000 + 30_000;
let now = start;
let platform: TestPlatform;
let other: ChildServer;
let removeBundle: () => void;
let bundleMain: string;

beforeAll(async () => {
  platform = await startPlatform({ rateLimit: 60, now: () => now });
  const bundle = await buildPrivateBundle();
  removeBundle = bundle.remove;
  bundleMain = bundle.main;
  other = await startChild(
    bundle.main,
    ["start", "--port", "0", "--log-level", "warn"],
    { PLATFORM_DATABASE_URL: platform.platformUrl, PROJECT_SERVERS: clusterUrl(clusterInfo()), MGMT_RATE_LIMIT: "60" },
    start,
  );
});
afterAll(async () => {
  await other?.stop();
  removeBundle?.();
  await platform.close();
});

function headers(r: { headers: Headers }) {
  return {
    limit: r.headers.get("x-ratelimit-limit"),
    remaining: r.headers.get("x-ratelimit-remaining"),
    reset: r.headers.get("x-ratelimit-reset"),
    retryAfter: r.headers.get("retry-after"),
  };
}

it("counts a user's calls across tokens and processes, exactly at the boundary", async () => {
  // One token from the token command as an operator runs it, one made in-process.
  const printed = await promisify(execFile)(process.execPath, [bundleMain, "token", "create", "--email", "busy@example.com"], {
    env: { ...process.env, PLATFORM_DATABASE_URL: platform.platformUrl },
  });
  expect(printed.stdout).toMatch(/^sbp_[a-f0-9]{40}\n$/);
  const tokens = [printed.stdout.trim(), await platform.token("busy@example.com")];
  const bystander = await platform.token("calm@example.com");
  const otherBase = other.banner.get("Management API")!.replace(/\/v1$/, "");
  const bases = [platform.baseUrl, otherBase];

  for (let i = 1; i <= 60; i++) {
    const r = await api(bases[i % 2]!, tokens[i % 2], "GET", "/v1/profile");
    expect(r.status, `call ${i}`).toBe(200);
    expect(headers(r)).toEqual({ limit: "60", remaining: String(60 - i), reset: "30", retryAfter: null });
  }

  const over = await api(otherBase, tokens[0], "GET", "/v1/profile");
  expect(over.status).toBe(429);
  expect(over.body.message).toMatch(/Rate limit/);
  // Blocked through the end of the next minute: 30 s of this one and 60 of the next.
  expect(headers(over)).toEqual({ limit: "60", remaining: "0", reset: "90", retryAfter: "90" });
  expect((await api(platform.baseUrl, tokens[1], "GET", "/v1/organizations")).status).toBe(429);
  expect((await api(platform.baseUrl, bystander, "GET", "/v1/profile")).status).toBe(200);

  now = (minute + 1) * 60_000;
  const next = await api(platform.baseUrl, tokens[0], "GET", "/v1/profile");
  expect(next.status).toBe(429);
  expect(headers(next)).toMatchObject({ reset: "60", retryAfter: "60" });
  now = (minute + 2) * 60_000 - 1;
  expect((await api(platform.baseUrl, tokens[1], "GET", "/v1/profile")).status).toBe(429);

  now = (minute + 2) * 60_000;
  const free = await api(platform.baseUrl, tokens[0], "GET", "/v1/profile");
  expect(free.status).toBe(200);
  expect(headers(free)).toEqual({ limit: "60", remaining: "59", reset: "60", retryAfter: null });
});

it("refuses an unauthenticated call before counting it", async () => {
  const r = await api(platform.baseUrl, undefined, "GET", "/v1/profile");
  expect(r.status).toBe(401);
  expect(r.headers.get("x-ratelimit-limit")).toBeNull();
});

it("starts with a body parser for every content type its routes declare (no warning at start)", () => {
  expect(other.output()).not.toContain("ContentTypeParser");
  expect(other.output()).not.toMatch(/"level":(40|50)/);
});

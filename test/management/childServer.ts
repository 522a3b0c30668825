// Test support: the server as its own OS process (the bundle, built into a private folder so
// concurrent test files do not race on server/dist), optionally with a fixed clock, and its
// banner read from stdout.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDashboard, buildServer } from "../../server/build.mjs";
import { testSecretsKey } from "./support";

const serverDir = fileURLToPath(new URL("../../server/", import.meta.url));

export interface ChildServer {
  child: ChildProcess;
  banner: Map<string, string>;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/** Builds the bundle into server/.test-build-*, beside dist/, so its relative paths hold; with
 * `dashboard`, the dashboard's assets too, where the bundle serves them from. */
export async function buildPrivateBundle(options: { dashboard?: boolean } = {}): Promise<{ main: string; remove(): void }> {
  const dir = mkdtempSync(join(serverDir, ".test-build-"));
  await Promise.all([buildServer(dir), ...(options.dashboard ? [buildDashboard(join(dir, "dashboard"))] : [])]);
  return { main: join(dir, "main.mjs"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `startupMs`: how long the banner may take (a loaded machine starts a process slowly). */
export function startChild(main: string, args: string[], env: Record<string, string>, fixedNow?: number, startupMs = 60_000): Promise<ChildServer> {
  // A fixed Date.now, set before the server loads, is the child's fake clock.
  const clock = fixedNow === undefined ? [] : ["--import", `data:text/javascript,Date.now=()=>${fixedNow}`];
  // The in-process test platforms' secrets key: a child sharing their platform reads their secrets,
  // and never makes a key file in the user's home.
  const secrets = { SECRETS_KEY: testSecretsKey.toString("hex") };
  const child = spawn(process.execPath, [...clock, main, ...args], { env: { ...process.env, ...secrets, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${out}`)), startupMs);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const banner = new Map<string, string>();
      for (const line of out.split("\n")) {
        const m = /^\s*([A-Za-z ]+[A-Za-z]): (\S+)$/.exec(line);
        if (m) banner.set(m[1]!.trim(), m[2]!);
      }
      if (banner.has("Health")) {
        clearTimeout(timer);
        resolve({ child, banner, output: () => out, stop });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${out}`));
    });
  });
}

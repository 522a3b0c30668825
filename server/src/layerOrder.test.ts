// The server's folders import one way. The data API (server/src) reaches the Management API only
// from the composition root; inside management/, the kernel sits below the features, in order,
// and each feature imports the kernel, itself and the features it declares (a graph without
// cycles); only the composition root (areas.ts and the files beside it) imports route modules.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(__dirname);
const MANAGEMENT = join(SRC, "management");

/** Files of server/src that build the process out of the data API and the Management API. */
const COMPOSITION_ROOT = ["main.ts", "serve.ts", "config.ts", "jwtCommand.ts", "demo/runDemo.ts", "http/banner.ts"];

/** The Management API's kernel, lowest first: each folder imports only the ones before it. */
const KERNEL = ["errors", "platform", "door", "outbound", "openapi", "users", "servers", "tenants", "http"];

/** Each feature folder and the features it may import (besides the kernel and itself). */
const FEATURES: Record<string, string[]> = {
  access: [],
  advisors: ["sql"],
  auth: ["keys"],
  backups: [],
  branches: ["backups"],
  dataApi: ["access", "auth", "keys", "settings"],
  domains: [],
  functions: [],
  keys: [],
  logs: [],
  oauth: [],
  organizations: ["backups", "functions", "projects"],
  pgRouter: [],
  projects: ["branches", "settings"],
  secrets: [],
  settings: ["access", "auth", "pgRouter"],
  snippets: [],
  sql: [],
  upgrades: ["projects"],
};

/** Folders at the top with the composition root's files: commands that may use everything. */
const TOP = ["cli"];

/** The handlers' `Call` carries the composition's service bag (services.ts): a type import binds
 * nothing at run time, and is the one import of the root allowed below it. */
const serviceBag = /^import type \{[^}]*\} from "(\.\.\/)+services"/;

interface Source {
  path: string;
  text: string;
}

function sources(dir: string): Source[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))
    .map((name) => ({ path: join(dir, name), text: readFileSync(join(dir, name), "utf8") }));
}

function imports(source: Source): Array<{ line: string; target: string }> {
  return [...source.text.matchAll(/^(?:import|export)[^;]*?from\s*["'](\.[^"']+)["']/gm)].map((m) => ({
    line: m[0],
    target: resolve(dirname(source.path), m[1]!),
  }));
}

/** management/<folder>/..., or "(root)" for a file directly in management/. */
function folderOf(path: string): string {
  const parts = relative(MANAGEMENT, path).split(sep);
  return parts.length === 1 ? "(root)" : parts[0]!;
}

function isRoutes(source: Source): boolean {
  return /export (const|function) \w+: ApiArea\b|: ApiArea = \{/.test(source.text);
}

/** Every import the rules forbid, as `file -> target` (paths relative to server/src). */
export function violations(files: Source[]): string[] {
  const out: string[] = [];
  const routeModules = new Set(files.filter(isRoutes).map((f) => f.path.replace(/\.ts$/, "")));
  const name = (path: string) => relative(SRC, path);
  for (const file of files) {
    const inManagement = !relative(MANAGEMENT, file.path).startsWith("..");
    for (const { line, target } of imports(file)) {
      const bad = () => out.push(`${name(file.path)} -> ${name(target)}`);
      const targetInManagement = !relative(MANAGEMENT, target).startsWith("..");
      if (!inManagement) {
        if (targetInManagement && !COMPOSITION_ROOT.includes(name(file.path))) bad();
        continue;
      }
      if (!targetInManagement) continue;
      const from = folderOf(file.path);
      const to = folderOf(target);
      if (from === "(root)" || TOP.includes(from)) continue;
      if (routeModules.has(target.replace(/\.ts$/, ""))) bad();
      else if (from === to) continue;
      else if (to === "(root)") {
        if (!serviceBag.test(line)) bad();
      } else if (TOP.includes(to)) bad();
      else if (KERNEL.includes(from)) {
        if (!KERNEL.includes(to) || KERNEL.indexOf(to) > KERNEL.indexOf(from)) bad();
      } else if (!KERNEL.includes(to) && !(FEATURES[from] ?? []).includes(to)) bad();
    }
  }
  return out;
}

/** A cycle in the declared feature graph, as its path, or undefined. */
export function cycle(graph: Record<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const walk = (node: string, path: string[]): string[] | undefined => {
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    if (state.get(node) === "done") return undefined;
    state.set(node, "open");
    for (const next of graph[node] ?? []) {
      const found = walk(next, [...path, node]);
      if (found) return found;
    }
    state.set(node, "done");
    return undefined;
  };
  for (const node of Object.keys(graph)) {
    const found = walk(node, []);
    if (found) return found;
  }
  return undefined;
}

describe("server layer order", () => {
  const files = sources(SRC);

  it("has no import against the order", () => {
    expect(violations(files)).toEqual([]);
  });

  it("declares a feature graph without cycles, naming only folders that exist", () => {
    expect(cycle(FEATURES)).toBeUndefined();
    const folders = readdirSync(MANAGEMENT).filter((n) => statSync(join(MANAGEMENT, n)).isDirectory());
    expect([...folders].sort()).toEqual([...KERNEL, ...Object.keys(FEATURES), ...TOP].sort());
    for (const deps of Object.values(FEATURES)) for (const d of deps) expect(Object.keys(FEATURES)).toContain(d);
  });

  it("names each kind of import against the order", () => {
    const at = (path: string, text: string): Source => ({ path: join(SRC, path), text });
    const fixture = [
      at("management/platform/sql.ts", 'import { ApiError } from "../http/apiError";'),
      at("management/backups/backups.ts", 'import type { ProjectPools } from "../dataApi/projectPools";'),
      at("management/keys/keyStore.ts", 'import type { Services } from "../services";\nimport { plugin } from "../plugin";'),
      at("management/settings/settingsStore.ts", 'import { projectSettingsArea } from "./projectSettings";'),
      at("management/settings/projectSettings.ts", "export const projectSettingsArea: ApiArea = {};"),
      at("management/projects/projects.ts", 'import { projectSettingsArea } from "../settings/projectSettings";'),
      at("app.ts", 'import { v1Api } from "./management/http/v1Api";'),
      at("serve.ts", 'import { registerManagement } from "./management/plugin";'),
      at("management/tenants/projectStore.ts", 'import { randomRef } from "../platform/randomRef";'),
    ];
    expect(violations(fixture)).toEqual([
      "management/platform/sql.ts -> management/http/apiError",
      "management/backups/backups.ts -> management/dataApi/projectPools",
      "management/keys/keyStore.ts -> management/plugin",
      "management/settings/settingsStore.ts -> management/settings/projectSettings",
      "management/projects/projects.ts -> management/settings/projectSettings",
      "app.ts -> management/http/v1Api",
    ]);
    expect(cycle({ a: ["b"], b: ["c"], c: ["a"] })).toEqual(["a", "b", "c", "a"]);
  });
});

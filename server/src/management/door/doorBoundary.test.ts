// The door is the only way to superuser rights on a project server: this reads every source file
// of the server and fails when another one could reach a superuser URL, open a door session, or
// run the tools and clients that act on a project database with a URL that is not a project
// login's.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

const files = readdirSync(root, { recursive: true, encoding: "utf8" })
  .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts"))
  .map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }));

/** Files (relative to server/src) where a pattern may appear, and why. */
const allowed: Array<{ pattern: RegExp; files: RegExp; why: string }> = [
  { pattern: /\.projectServers\b|projectServers:/, files: /^(config|management\/managementConfig|management\/services|demo\/runDemo)\.ts$/, why: "the superuser URLs go from the configuration to the door only" },
  { pattern: /pinnedSession"/, files: /^management\/door\//, why: "superuser sessions are opened by the door alone" },
  { pattern: /\bwithDatabase\(/, files: /^management\/(door\/|platform\/(migrate|connectionUrl)\.ts|logs\/logsDatabase\.ts|servers\/projectServers\.ts)/, why: "another database on a server is reached through the door, or as a login" },
  { pattern: /"pg_(dump|restore)"/, files: /^management\/backups\/logicalDump\.ts$/, why: "dumps and restores run as a project's own logins" },
  { pattern: /\bcreateClient\(/, files: /^management\/branches\/branchWork\.ts$/, why: "the schema diff reads both databases on read-only logins" },
];

describe("the superuser door", () => {
  it.each(allowed)("$why", ({ pattern, files: where }) => {
    const outside = files.filter((f) => pattern.test(f.text) && !where.test(f.path)).map((f) => f.path);
    expect(outside).toEqual([]);
  });

  it("finds the patterns it guards where they are allowed (the scan reads the sources)", () => {
    for (const { pattern } of allowed) expect(files.some((f) => pattern.test(f.text))).toBe(true);
  });
});

// Upgrading is `drop extension; create extension` in one transaction. The same sources are built
// under an older version number, installed beside the current release, and replaced while another
// connection keeps calling graphql.resolve: no call may fail.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";

const oldVersion = "0.0.1";
const extensionDir = join(execFileSync("pg_config", ["--sharedir"], { encoding: "utf8" }).trim(), "extension");
const installedOldScript = join(extensionDir, `pg_graphql--${oldVersion}.sql`);

describe("upgrade by drop and create", () => {
  let db: TestDatabase;
  let buildDir: string;

  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), "pg-graphql-old-"));
    execFileSync("node", ["build/build.mjs"], {
      env: { ...process.env, PG_GRAPHQL_VERSION: oldVersion, PG_GRAPHQL_DIST: buildDir },
      stdio: "ignore",
    });
    copyFileSync(join(buildDir, `pg_graphql--${oldVersion}.sql`), installedOldScript);
    db = await freshDatabase();
    await db.query(`create extension pg_graphql version '${oldVersion}' cascade`);
    await db.query("create role upgrade_caller");
  }, 180_000);

  afterAll(async () => {
    await db?.drop();
    await db?.query("drop role if exists upgrade_caller").catch(() => {});
    rmSync(installedOldScript, { force: true });
    rmSync(buildDir, { recursive: true, force: true });
  });

  it("lists both versions, the newest as default", async () => {
    const { rows } = await db.query(
      "select version from pg_available_extension_versions where name = 'pg_graphql' order by version",
    );
    expect(rows.map((r) => r.version)).toContain(oldVersion);
    const ext = await db.query("select default_version, installed_version from pg_available_extensions where name = 'pg_graphql'");
    expect(ext.rows[0].installed_version).toBe(oldVersion);
    expect(ext.rows[0].default_version).not.toBe(oldVersion);
  });

  it("fails no call while another connection upgrades", async () => {
    const caller = await db.connect();
    await caller.query("set role upgrade_caller");
    const seen: { version: string; ok: boolean; error?: string }[] = [];
    let stop = false;
    const deadline = Date.now() + 60_000;
    const loop = (async () => {
      // Bounded in count and time; runs until the upgrade is committed and 50 calls after it.
      let after = 0;
      for (let i = 0; i < 20_000 && Date.now() < deadline && after < 50; i++) {
        try {
          const { rows } = await caller.query(
            "select graphql.resolve('{ __typename }') as r, (select extversion from pg_extension where extname = 'pg_graphql') as v",
          );
          const ok = rows[0].r?.data?.__typename === "Query";
          seen.push({ version: rows[0].v, ok, ...(ok ? {} : { error: JSON.stringify(rows[0].r) }) });
        } catch (e) {
          seen.push({ version: "?", ok: false, error: String(e) });
        }
        if (stop) after++;
      }
    })();

    const upgrader = await db.connect();
    try {
      // Let some calls run on the old version first.
      while (seen.length < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await upgrader.query("begin");
      await upgrader.query("drop extension pg_graphql");
      await upgrader.query("create extension pg_graphql");
      await upgrader.query("commit");
      stop = true;
      await loop;
    } finally {
      await upgrader.end();
    }

    const failed = seen.filter((s) => !s.ok);
    expect(failed).toEqual([]);
    const versions = new Set(seen.map((s) => s.version));
    expect(versions.has(oldVersion)).toBe(true);
    const current = (await db.query("select extversion from pg_extension where extname = 'pg_graphql'")).rows[0].extversion;
    expect(current).not.toBe(oldVersion);
    expect(versions.has(current)).toBe(true);

    // The caller's backend noticed the stale bundle and evaluated the new one: twice in all.
    const info = await caller.query("select graphql._bundle_info() as info");
    expect(info.rows[0].info.evaluations).toBe(2);
    expect(info.rows[0].info.stamp.startsWith(`${current}-`)).toBe(true);
    await caller.end();
  }, 120_000);
});

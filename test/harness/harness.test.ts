import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clusterInfo, freshDatabase, type TestDatabase } from "./db";

describe("test harness", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("hands out a database of its own on PostgreSQL 15", async () => {
    const { rows } = await db.query("select current_database() as name, current_setting('server_version_num')::int as v");
    expect(rows[0].name).toBe(db.name);
    expect(Math.floor(rows[0].v / 10000)).toBe(15);
  });

  it("preloads pg_stat_statements with track = all", async () => {
    const { rows } = await db.query("select current_setting('pg_stat_statements.track') as track");
    expect(rows[0].track).toBe("all");
  });

  it("preloads plv8 without starting V8 in the postmaster", async () => {
    const { rows } = await db.query("select current_setting('shared_preload_libraries') as libs");
    expect(rows[0].libs.split(",").map((l: string) => l.trim())).toContain("plv8");
    // A backend runs JavaScript (starting V8 and its threads in that backend only) ...
    await db.query("create extension if not exists plv8");
    await db.query("do language plv8 'var x = 1 + 1;'");
    // ... while the postmaster stays a single thread, so forked backends never inherit V8 state.
    const pid = readFileSync(join(clusterInfo().dataDir, "postmaster.pid"), "utf8").split("\n")[0];
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    expect(status).toMatch(/^Threads:\s+1$/m);
  });
});

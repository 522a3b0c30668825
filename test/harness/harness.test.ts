import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "./db";

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
});

// The door's sessions against a tenant database that sets traps through its own database-level
// settings and look-alike objects: every door statement still resolves to the catalog, runs
// under the platform's timeouts, and writes though the tenant made its database read-only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { clusterInfo } from "../harness/db";
import { clusterUrl } from "../management/support";
import { ServerDoor } from "../../server/src/management/door/superuserDoor";
import { withPinnedSession } from "../../server/src/management/door/pinnedSession";

let db: TestDatabase;
let door: ServerDoor;

// Each trap fails loudly: a door statement that ran one would fail.
const traps = `
  create schema evil;
  create function evil.trap() returns text language plpgsql as $$ begin raise exception 'a trap ran as %', current_user; end $$;
  create function evil.format(text, integer) returns text language sql as $$ select evil.trap() $$;
  create function evil.current_setting(text) returns text language sql as $$ select evil.trap() $$;
  create function evil.pg_terminate_backend(integer) returns boolean language sql as $$ select evil.trap() is null $$;
  create function evil.text_eq(text, text) returns boolean language sql as $$ select evil.trap() is null $$;
  create operator evil.= (leftarg = text, rightarg = text, function = evil.text_eq);
  create domain evil.name as pg_catalog.text check (evil.trap() is null);
  create domain evil.text as pg_catalog.text check (evil.trap() is null);
  create table evil.pg_extension (extname text, extversion text);
  insert into evil.pg_extension values ('pg_graphql', 'fake');
  grant usage on schema evil to public;
  grant execute on all functions in schema evil to public;
  create schema postgres;
  create function postgres.format(text, integer) returns text language sql as $$ select evil.trap() $$;
  create role door_trap_owner;`;

beforeAll(async () => {
  db = await freshDatabase();
  await db.query(traps);
  await db.query(`alter database "${db.name}" set search_path = evil, postgres, pg_catalog`);
  await db.query(`alter database "${db.name}" set statement_timeout = '1ms'`);
  await db.query(`alter database "${db.name}" set lock_timeout = '1ms'`);
  await db.query(`alter database "${db.name}" set default_transaction_read_only = on`);
  await db.query(`create schema if not exists auth`);
  door = new ServerDoor("test", clusterUrl(clusterInfo()));
});
afterAll(async () => {
  await db.drop();
  await db.query("drop role if exists door_trap_owner").catch(() => {});
});

describe("a door session in a database that sets traps", () => {
  it("starts with its own settings, whatever the database sets: unqualified names are the catalog's", async () => {
    const row = await withPinnedSession(clusterUrl(clusterInfo()), db.name, (sql) =>
      sql.one(
        `select format('%s', 1) as f, 'a'::text = 'a' as eq, current_setting('search_path') as path,
                current_setting('statement_timeout') as timeout, current_setting('default_transaction_read_only') as ro`,
      ),
    );
    expect(row).toEqual({ f: "1", eq: true, path: "pg_catalog,pg_temp", timeout: "5min", ro: "off" });
  });

  it("resolves names in the catalog, under its own timeouts, and may write", async () => {
    // A grant writes (default_transaction_read_only is pinned off) and names no function.
    await door.inside.grantPlatformUsage(db.name, "door_trap_owner");
    expect((await db.query("select has_schema_privilege('door_trap_owner', 'auth', 'usage') as ok")).rows).toEqual([{ ok: true }]);
    // The catalog's pg_extension, not the look-alike table earlier on the search path.
    expect(await door.inside.extensionVersion(db.name, "pg_graphql")).toBeUndefined();
  });

  it("reads the database's settings and size from the maintenance database", async () => {
    expect(await door.databases.settings(db.name)).toEqual(
      expect.arrayContaining(["search_path=evil, postgres, pg_catalog", "statement_timeout=1ms", "default_transaction_read_only=on"]),
    );
    expect(await door.databases.bytes(db.name)).toBeGreaterThan(0);
  });

  it("a tenant's session of the same database meets its traps (the traps are live)", async () => {
    const client = await db.connect();
    try {
      await client.query("set statement_timeout = 0");
      await expect(client.query("select format('%s', 1)")).rejects.toThrow(/a trap ran as postgres/);
    } finally {
      await client.end();
    }
  });
});

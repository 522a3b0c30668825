import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, pgError, plv8Database } from "./support";

// Values that one side can hold and the other cannot (a text longer than a V8 string, a
// JavaScript string longer than a PostgreSQL value, a bytea past plv8.memory_limit) must end
// in an ERROR with an SQLSTATE, never in a silently wrong value or a lost backend.
describe("values past the limits of either side", () => {
  let db: TestDatabase;
  let client: pg.Client;
  let pid: number;
  // V8's String::kMaxLength on 64-bit is 2^29 - 24 characters.
  const tooLongForV8 = 2 ** 29;

  beforeAll(async () => {
    db = await plv8Database();
    await db.query(`
      create function js_length(t text) returns bigint as $$ return t.length; $$ language plv8;
      create function js_bytes(b bytea) returns bigint as $$ return b.length; $$ language plv8;
      create function fetch_long_text() returns text as $$
        try {
          plv8.execute('select repeat($1, $2) as t', ['x', ${tooLongForV8}]);
          return 'no error';
        } catch (e) {
          // Caught like any SQL error; the transaction goes on.
          return e.sqlerrcode + ' ' + plv8.execute('select 1 as one')[0].one;
        }
      $$ language plv8;
      create function euro_string() returns text as $$ return '\\u20ac'.repeat(400 * 1000 * 1000); $$ language plv8;
      create function sparse_array() returns int[] as $$ const a = []; a.length = 200 * 1000 * 1000; return a; $$ language plv8;
    `);
    client = await db.connect();
    pid = await backendPid(client);
  });
  afterAll(async () => {
    await client.end();
    await db.drop();
  });

  async function answersNext(): Promise<void> {
    expect(await backendPid(client)).toBe(pid);
    const { rows } = await client.query("select js_length('abc') as n");
    expect(rows[0].n).toBe("3");
  }

  it("refuses a text argument longer than a JavaScript string with 54000", async () => {
    const err = await pgError(client.query("select js_length(repeat('x', $1)) as n", [tooLongForV8]));
    expect(err.code).toBe("54000");
    expect(err.message).toBe("value is too long for a JavaScript string");
    expect(err.detail).toContain(`${tooLongForV8} bytes`);
    await answersNext();
  });

  it("hands the same error to JavaScript as a catchable SQL error from plv8.execute", async () => {
    const { rows } = await client.query("select fetch_long_text() as v");
    expect(rows[0].v).toBe("54000 1");
    await answersNext();
  });

  it("refuses a JavaScript string whose UTF-8 is longer than a PostgreSQL value with 54000", async () => {
    // The limit applies to environments started after it is set.
    await client.query("set plv8.memory_limit = 2048; select plv8_reset()");
    const err = await pgError(client.query("select length(euro_string())"));
    expect(err.code).toBe("54000");
    expect(err.message).toBe("JavaScript value is too long for type text");
    await answersNext();
  });

  it("refuses an array with more elements than PostgreSQL allows with 54000", async () => {
    const err = await pgError(client.query("select cardinality(sparse_array())"));
    expect(err.code).toBe("54000");
    expect(err.message).toMatch(/^array size exceeds the maximum allowed/);
    await answersNext();
  });

  it("ends a bytea argument larger than plv8.memory_limit with 53200", async () => {
    await client.query("set plv8.memory_limit = 64; select plv8_reset()");
    const err = await pgError(client.query("select js_bytes(convert_to(repeat('x', 100 * 1000 * 1000), 'UTF8'))"));
    expect(err.code).toBe("53200");
    await answersNext();
    const { rows } = await client.query("select js_bytes('\\x010203'::bytea) as n");
    expect(rows[0].n).toBe("3");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, fatalLogLines, pgError, plv8Database } from "./support";

// Running the heap out must end the statement with PLV8's ordinary ERROR (`Out of memory error`,
// nothing more), never a FATAL or a crash: the isolate is disposed and the next call in the same
// backend gets a fresh one. An ArrayBuffer past the limit is a catchable RangeError, as in PLV8,
// whose allocator counts V8's heap in use together with the buffers.
const heapCases = {
  "an array of objects": "let a = []; for (;;) a.push({ n: a.length, s: 'item ' + a.length });",
  "flat strings": "let a = []; for (;;) a.push(('x' + a.length).repeat(1 << 16).split('').join(''));",
  "an endless array spread": "let a = [1]; for (;;) a = [...a, ...a];",
  "a string doubled until it fails": "let s = 'x'; for (;;) { s = s + s; s = JSON.parse(JSON.stringify(s)); }",
  "a growing object": "const o = {}; for (let i = 0;; i++) o['k' + i] = i;",
  "a growing Map": "const m = new Map(); for (let i = 0;; i++) m.set(i, { i });",
  "builtins that allocate past the limit before they look at termination":
    "const a = new Array(1e7).fill(0).map((x, i) => 'v' + i); plv8.elog(NOTICE, a.join(',').length);",
};

describe("plv8.memory_limit", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query(
      "create function probe() returns text as $$ return typeof globalThis.before + ':' + [1, 2, 3].map(x => x * 2).join(','); $$ language plv8",
    );
  });
  afterAll(async () => {
    await db.drop();
  });

  it("defaults to PLV8's 256 MB", async () => {
    const { rows } = await db.query("select current_setting('plv8.memory_limit') as v");
    expect(rows[0].v).toBe("256MB");
  });

  for (const [name, body] of Object.entries(heapCases)) {
    it(`ends ${name} with "Out of memory error", and the same backend answers next`, async () => {
      const client = await db.connect();
      // A smaller limit than the default keeps the test quick; the mechanism is the same.
      await client.query("set plv8.memory_limit = 32");
      const pid = await backendPid(client);
      await client.query("do $$ globalThis.before = 'set before' $$ language plv8");
      const err = await pgError(client.query(`do $$ ${body} $$ language plv8`));
      expect(err.code).toBe("53200");
      expect(err.message).toBe("Out of memory error");
      expect(err.detail).toBeUndefined();
      expect(await backendPid(client)).toBe(pid);
      // A fresh isolate: globals of the disposed one are gone, and it works.
      expect((await client.query("select probe() as v")).rows[0].v).toBe("undefined:2,4,6");
      expect(fatalLogLines(pid)).toEqual([]);
      await client.end();
    });
  }

  it("ends a growing Map at the default limit with an ERROR, not a FATAL", async () => {
    const client = await db.connect();
    const pid = await backendPid(client);
    const err = await pgError(client.query(`do $$ ${heapCases["a growing Map"]} $$ language plv8`));
    expect(err.code).toBe("53200");
    expect(err.message).toBe("Out of memory error");
    expect(err.detail).toBeUndefined();
    expect(await backendPid(client)).toBe(pid);
    expect(fatalLogLines(pid)).toEqual([]);
    await client.end();
  });

  it("throws a catchable RangeError for an ArrayBuffer or typed array past the limit", async () => {
    const client = await db.connect();
    await client.query("set plv8.memory_limit = 32");
    await client.query(`
      create function pg_temp.big_buffers() returns text as $$
        const seen = [];
        for (const make of [() => new ArrayBuffer(64 << 20), () => new Float64Array(8 << 20)]) {
          try { make(); seen.push('allocated'); } catch (e) { seen.push(e instanceof RangeError && e.message); }
        }
        return seen.join('; ') + '; ' + new Uint8Array(1024).length;
      $$ language plv8`);
    const { rows } = await client.query("select pg_temp.big_buffers() as v");
    expect(rows[0].v).toBe("Array buffer allocation failed; Array buffer allocation failed; 1024");
    await client.end();
  });

  it("counts V8's heap in use with the buffers: a buffer that fits alone is refused beside a large heap", async () => {
    const client = await db.connect();
    await client.query("set plv8.memory_limit = 64");
    await client.query(`
      create function pg_temp.beside_heap() returns text as $$
        const seen = [];
        const buffer = () => { try { seen.push(new ArrayBuffer(40 << 20).byteLength); } catch (e) { seen.push(String(e)); } };
        buffer();
        // About 32 MB of V8's heap: 400 arrays of 10,000 doubles.
        const held = [];
        for (let i = 0; i < 400; i++) held.push(new Array(10000).fill(1.5));
        buffer();
        try { new ArrayBuffer(64 << 20); } catch (e) { seen.push(String(e)); }
        return seen.join('; ') + '; ' + held.length;
      $$ language plv8`);
    const { rows } = await client.query("select pg_temp.beside_heap() as v");
    expect(rows[0].v).toBe(
      "41943040; RangeError: Array buffer allocation failed; RangeError: Array buffer allocation failed; 400",
    );
    await client.end();
  });

  it("ends many small buffers with a catchable RangeError, not an out-of-memory error", async () => {
    const client = await db.connect();
    await client.query("set plv8.memory_limit = 32");
    const pid = await backendPid(client);
    await client.query(`
      create function pg_temp.small_buffers() returns text as $$
        // Each buffer's object in V8's heap is about as large as its 100 bytes.
        const held = [];
        try { for (;;) held.push(new ArrayBuffer(100)); } catch (e) { return e instanceof RangeError && e.message + ' after ' + (held.length > 1000); }
      $$ language plv8`);
    expect((await client.query("select pg_temp.small_buffers() as v")).rows[0].v).toBe("Array buffer allocation failed after true");
    // With the limit reached, reading a small typed array's buffer or passing one as bytea never
    // meets a refusal V8 would take for fatal.
    const tiny = await client.query(`do $$
      const held = [];
      try { for (;;) held.push(new ArrayBuffer(4096)); } catch (e) {}
      // Typed arrays of at most 64 bytes live in V8's heap until their buffer is read.
      const small = [];
      for (let i = 0; i < 1000; i++) small.push(new Uint8Array([i & 255, 1, 2]).buffer.byteLength);
      plv8.elog(NOTICE, small.length, plv8.execute('select $1::bytea as b', [new Uint8Array([1, 2, 3])])[0].b.length);
    $$ language plv8`);
    expect(tiny.command).toBe("DO");
    expect(await backendPid(client)).toBe(pid);
    expect(fatalLogLines(pid)).toEqual([]);
    await client.end();
  });

  it("lets buffers fill the limit and refuses the next one with an uncaught RangeError", async () => {
    const client = await db.connect();
    await client.query("set plv8.memory_limit = 32");
    const pid = await backendPid(client);
    const err = await pgError(client.query("do $$ let a = []; for (;;) a.push(new ArrayBuffer(1 << 20)); $$ language plv8"));
    expect(err.message).toBe("RangeError: Array buffer allocation failed");
    // Memory held by the failed call's buffers is released with it.
    await client.query(
      "create function pg_temp.buffers() returns int as $$ let a = []; for (let i = 0; i < 24; i++) a.push(new ArrayBuffer(1 << 20)); return a.length; $$ language plv8",
    );
    expect((await client.query("select pg_temp.buffers() as n")).rows[0].n).toBe(24);
    expect(await backendPid(client)).toBe(pid);
    await client.end();
  });
});

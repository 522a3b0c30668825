import { randomUUID } from "node:crypto";
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterInfo, type TestDatabase } from "../harness/db";
import { pgError, plv8Database } from "./support";

// Compiled function bodies are kept in files under the data directory, so that a new backend
// skips compiling them; the cache is invisible except through plv8_info()'s counters.
interface Counters {
  hits: number;
  misses: number;
  writes: number;
  rejected: number;
}

// The layout of a cache file: magic, sha256 key, payload length, CRC-32C of the payload, flags.
const headerSize = 52;
const lengthOffset = 40;
const crcOffset = 44;
const flagsOffset = 48;

function crc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

async function counters(client: pg.Client): Promise<Counters> {
  const { rows } = await client.query(
    "select e->'code_cache' as v from jsonb_array_elements(plv8_info()) e where e->>'user' = current_user",
  );
  return rows[0].v as Counters;
}

const cacheRoot = () => join(clusterInfo().dataDir, "pg_plv8_code_cache");

/** A database's cache directory: named by its oid under the cache root. */
async function databaseDir(db: TestDatabase): Promise<string> {
  const { rows } = await db.query("select oid::text as oid from pg_database where datname = current_database()");
  return join(cacheRoot(), rows[0].oid);
}

/** Cache files under `dir` and the directories in it (wherever a layout puts them). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : /^[0-9a-f]{64}$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** A directory the server may empty and remove (tests may run as root, the server as postgres). */
function mkdirAsServer(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const { uid, gid } = statSync(clusterInfo().dataDir);
  chownSync(dir, uid, gid);
}

/** The cache files of the function whose body carries `marker` (V8 keeps its string constants). */
function cacheFiles(marker: string): string[] {
  return filesUnder(cacheRoot()).filter((path) => readFileSync(path).includes(marker));
}

/** A body past the handler's minimum size for caching, with inner functions that run lazily. */
function body(marker: string): string {
  const lines = [
    `var tag = "${marker}";`,
    "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }",
    "function describe(xs) { return xs.map(function (x) { return { x: x, fib: fib(x), square: x * x }; }); }",
    "if (fail) {",
    '  throw new Error("failed after " + describe([n]).length + " item");',
    "}",
    "return { tag: tag, items: describe([1, 2, 3, n]), text: JSON.stringify([n, tag.length]) };",
  ];
  const padding = "/* " + "a comment that only makes the body long enough to be worth a cache file. ".repeat(20) + "*/";
  return lines.join("\n") + "\n" + padding;
}

describe("code cache", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
  });
  afterAll(async () => {
    await db.drop();
  });

  async function createFunction(name: string): Promise<string> {
    const marker = `code-cache-${randomUUID()}`;
    await db.query(
      `create function ${name}(n int, fail bool default false) returns jsonb as $body$${body(marker)}$body$ language plv8`,
    );
    return marker;
  }

  /** Runs `sql` in a new backend; `off` turns the cache off there first. */
  async function inNewBackend<T>(run: (client: pg.Client) => Promise<T>, off = false): Promise<{ value: T; counters: Counters }> {
    const client = await db.connect();
    try {
      if (off) await client.query("set plv8.code_cache = off");
      const value = await run(client);
      return { value, counters: await counters(client) };
    } finally {
      await client.end();
    }
  }

  const call = (name: string, n: number) => async (client: pg.Client) =>
    (await client.query(`select ${name}($1) as v`, [n])).rows[0].v;

  it("writes a cache after the first call and serves the next backend from it, with the same result", async () => {
    const marker = await createFunction("cached_fn");
    const first = await inNewBackend(call("cached_fn", 20));
    expect(first.counters).toEqual({ hits: 0, misses: 1, writes: 1, rejected: 0 });
    expect(cacheFiles(marker)).toHaveLength(1);

    const second = await inNewBackend(call("cached_fn", 20));
    expect(second.counters).toEqual({ hits: 1, misses: 0, writes: 0, rejected: 0 });
    const uncached = await inNewBackend(call("cached_fn", 20), true);
    expect(uncached.counters).toEqual({ hits: 0, misses: 0, writes: 0, rejected: 0 });

    expect(second.value).toEqual(first.value);
    expect(uncached.value).toEqual(first.value);
    expect(first.value.items[3]).toEqual({ x: 20, fib: 6765, square: 400 });
  });

  it("reports an error at the same line with and without a cache", async () => {
    await createFunction("failing_fn");
    await inNewBackend(call("failing_fn", 1));  // writes the cache
    const failing = (client: pg.Client) => pgError(client.query("select failing_fn(1, true)"));
    const withCache = await inNewBackend(failing);
    expect(withCache.counters.hits).toBe(1);
    const withoutCache = await inNewBackend(failing, true);
    expect(withCache.value.message).toBe("failed after 1 item");
    expect(withCache.value.where).toMatch(/^failing_fn\(\) LINE 5: +throw new Error/);
    expect(withCache.value.message).toBe(withoutCache.value.message);
    expect(withCache.value.where).toBe(withoutCache.value.where);
  });

  it("replaces a damaged file without an error", async () => {
    const marker = await createFunction("damaged_fn");
    const expected = (await inNewBackend(call("damaged_fn", 7))).value;
    const [path] = cacheFiles(marker);
    const original = readFileSync(path);

    // Bytes changed inside the payload: the file's own checksum no longer matches.
    const flipped = Buffer.from(original);
    for (let i = headerSize + 16; i < headerSize + 48; i++) flipped[i] ^= 0xff;
    writeFileSync(path, flipped);
    const afterFlip = await inNewBackend(call("damaged_fn", 7));
    expect(afterFlip.value).toEqual(expected);
    expect(afterFlip.counters).toEqual({ hits: 0, misses: 0, writes: 1, rejected: 1 });
    expect(readFileSync(path).equals(flipped)).toBe(false);

    // A payload V8 itself refuses, behind a header that checks out.
    const foreign = Buffer.from(readFileSync(path));
    for (let i = headerSize; i < headerSize + 8; i++) foreign[i] ^= 0x5a;
    foreign.writeUInt32LE(crc32c(foreign.subarray(headerSize)), crcOffset);
    writeFileSync(path, foreign);
    const afterForeign = await inNewBackend(call("damaged_fn", 7));
    expect(afterForeign.value).toEqual(expected);
    expect(afterForeign.counters).toEqual({ hits: 0, misses: 0, writes: 1, rejected: 1 });

    // A file cut short.
    writeFileSync(path, original.subarray(0, headerSize + 10));
    const afterCut = await inNewBackend(call("damaged_fn", 7));
    expect(afterCut.value).toEqual(expected);
    expect(afterCut.counters).toEqual({ hits: 0, misses: 0, writes: 1, rejected: 1 });

    const replaced = readFileSync(path);
    expect(replaced.readUInt32LE(lengthOffset)).toBe(replaced.length - headerSize);
    const healed = await inNewBackend(call("damaged_fn", 7));
    expect(healed.counters).toEqual({ hits: 1, misses: 0, writes: 0, rejected: 0 });
  });

  it("is skipped with plv8.code_cache off, and for small bodies", async () => {
    const marker = await createFunction("uncached_fn");
    const off = await inNewBackend(call("uncached_fn", 3), true);
    expect(off.counters).toEqual({ hits: 0, misses: 0, writes: 0, rejected: 0 });
    expect(cacheFiles(marker)).toHaveLength(0);

    await db.query("create function small_fn() returns int as $$ return 42; $$ language plv8");
    const small = await inNewBackend(async (client) => (await client.query("select small_fn() as v")).rows[0].v);
    expect(small.value).toBe(42);
    expect(small.counters).toEqual({ hits: 0, misses: 0, writes: 0, rejected: 0 });
  });

  it("writes nothing for a call that failed, and caches once that function succeeds", async () => {
    const marker = await createFunction("first_fails_fn");
    const result = await inNewBackend(async (client) => {
      await pgError(client.query("select first_fails_fn(1, true)"));
      const afterError = await counters(client);
      const ok = (await client.query("select first_fails_fn(1) as v")).rows[0].v;
      return { afterError, ok };
    });
    expect(result.value.afterError).toEqual({ hits: 0, misses: 1, writes: 0, rejected: 0 });
    expect(result.counters).toEqual({ hits: 0, misses: 1, writes: 1, rejected: 0 });
    expect(cacheFiles(marker)).toHaveLength(1);
  });

  it("rewrites a file written by a cold call once the code is warm, and only once", async () => {
    const marker = `code-cache-${randomUUID()}`;
    const rare = "function rare(k) { var out = []; for (var i = 0; i < k; i++) out.push({ i: i, even: i % 2 === 0 }); return out.filter(function (o) { return o.even; }).length; }";
    await db.query(
      `create function warming_fn(n int, fail bool default false) returns jsonb as $body$${rare}\nif (n > 100) return { rare: rare(n) };\n${body(marker)}$body$ language plv8`,
    );
    await inNewBackend(call("warming_fn", 1));
    const [path] = cacheFiles(marker);
    const cold = readFileSync(path);
    expect(cold.readUInt32LE(flagsOffset)).toBe(0);

    const warming = await inNewBackend(async (client) => {
      await client.query("select warming_fn(1)");
      for (let i = 0; i < 16; i++) await client.query("select warming_fn(200)");
    });
    expect(warming.counters).toEqual({ hits: 1, misses: 0, writes: 1, rejected: 0 });
    const warm = readFileSync(path);
    expect(warm.readUInt32LE(flagsOffset)).toBe(1);
    expect(warm.length).toBeGreaterThan(cold.length);

    const later = await inNewBackend(async (client) => {
      for (let i = 0; i < 20; i++) await client.query("select warming_fn(200)");
    });
    expect(later.counters).toEqual({ hits: 1, misses: 0, writes: 0, rejected: 0 });
  });

  it("removes files unused past plv8.code_cache_max_age and the least recently used past plv8.code_cache_max_size", async () => {
    await createFunction("prune_first_fn");
    await inNewBackend(call("prune_first_fn", 1)); // the directory exists from here on
    const dir = await databaseDir(db);
    const real = readdirSync(dir).filter((n) => /^[0-9a-f]{64}$/.test(n));
    const realTotal = real.reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
    const now = Date.now() / 1000;
    const fake = (name: string, ageMinutes: number, size: number) => {
      const path = join(dir, name);
      writeFileSync(path, Buffer.alloc(size, 1));
      utimesSync(path, now - ageMinutes * 60, now - ageMinutes * 60);
      return path;
    };
    const mb = 1024 * 1024;
    const unused = fake("d".repeat(64), 120, 1000);
    const staleTemp = fake("e".repeat(64) + ".tmp99999", 120, 1000);
    // Least recently used first: a and b must go to fit; c fits unless other writers add 8 MB meanwhile.
    const oldest = fake("a".repeat(64), 50, 16 * mb);
    const older = fake("b".repeat(64), 40, 16 * mb);
    const kept = fake("c".repeat(64), 30, 16 * mb);
    const foreign = fake("not-a-cache-file", 120, 1000);

    const marker = await createFunction("prune_second_fn");
    const pruned = await inNewBackend(async (client) => {
      await client.query("set plv8.code_cache_max_age = '1h'");
      await client.query(`set plv8.code_cache_max_size = '${Math.ceil((realTotal + 24 * mb) / 1024)}kB'`);
      return call("prune_second_fn", 1)(client);
    });
    expect(pruned.counters.writes).toBe(1);
    expect([unused, staleTemp, oldest, older].filter((p) => existsSync(p))).toEqual([]);
    expect(existsSync(kept)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect(cacheFiles(marker)).toHaveLength(1);
    for (const n of real) expect(existsSync(join(dir, n))).toBe(true);
    rmSync(kept);
    rmSync(foreign);
  });
});

// Each database keeps its entries apart from every other's, on a budget of its own: one
// database can neither find another's entry (and time whether it runs a given source) nor
// evict it.
describe("code cache per database", () => {
  let a: TestDatabase;
  let b: TestDatabase;
  beforeAll(async () => {
    a = await plv8Database();
    b = await plv8Database();
  });
  afterAll(async () => {
    await a.drop();
    await b.drop();
  });

  async function callIn(db: TestDatabase, name: string, settings: string[] = []): Promise<Counters> {
    const client = await db.connect();
    try {
      for (const s of settings) await client.query(s);
      await client.query(`select ${name}(5) as v`);
      return await counters(client);
    } finally {
      await client.end();
    }
  }

  async function createIn(db: TestDatabase, name: string, marker = `code-cache-${randomUUID()}`): Promise<string> {
    await db.query(`create function ${name}(n int, fail bool default false) returns jsonb as $body$${body(marker)}$body$ language plv8`);
    return marker;
  }

  it("compiles the same source without a cache in a second database, and keeps a file for each", async () => {
    const marker = await createIn(a, "same_fn");
    await createIn(b, "same_fn", marker);
    expect(await callIn(a, "same_fn")).toEqual({ hits: 0, misses: 1, writes: 1, rejected: 0 });
    expect(await callIn(b, "same_fn")).toEqual({ hits: 0, misses: 1, writes: 1, rejected: 0 });
    expect(await callIn(b, "same_fn")).toEqual({ hits: 1, misses: 0, writes: 0, rejected: 0 });
    expect(await callIn(a, "same_fn")).toEqual({ hits: 1, misses: 0, writes: 0, rejected: 0 });
    const files = cacheFiles(marker);
    expect(files.map((f) => dirname(f)).sort()).toEqual([await databaseDir(a), await databaseDir(b)].sort());
  });

  it("keeps each database within its own plv8.code_cache_max_size: filling one evicts nothing of another's", async () => {
    const kept = await createIn(a, "kept_fn");
    await callIn(a, "kept_fn");
    const [keptFile] = cacheFiles(kept);
    // The least recently used file of the cluster.
    const hourAgo = Date.now() / 1000 - 3600;
    utimesSync(keptFile!, hourAgo, hourAgo);

    // Database b over a budget of 64 kB: its older files go when it writes one more.
    const dir = await databaseDir(b);
    const filler = join(dir, "1".repeat(64));
    mkdirAsServer(dir);
    writeFileSync(filler, Buffer.alloc(70 * 1024, 1));
    utimesSync(filler, hourAgo + 60, hourAgo + 60);
    await createIn(b, "filling_fn");
    const filled = await callIn(b, "filling_fn", ["set plv8.code_cache_max_size = '64kB'"]);
    expect(filled.writes).toBe(1);
    expect(existsSync(filler)).toBe(false);
    expect(filesUnder(dir).reduce((sum, p) => sum + statSync(p).size, 0)).toBeLessThanOrEqual(64 * 1024);

    expect(existsSync(keptFile!)).toBe(true);
    expect(await callIn(a, "kept_fn")).toEqual({ hits: 1, misses: 0, writes: 0, rejected: 0 });
  });

  it("removes the directories of dropped databases and files left at the top by the earlier layout", async () => {
    const root = cacheRoot();
    const dropped = join(root, "4000000000");
    mkdirAsServer(dropped);
    writeFileSync(join(dropped, "3".repeat(64)), Buffer.alloc(100, 1));
    const flat = join(root, "4".repeat(64));
    writeFileSync(flat, Buffer.alloc(100, 1));
    const foreign = join(root, "not-a-cache-file");
    writeFileSync(foreign, "kept");

    await createIn(a, "tidy_fn");
    expect((await callIn(a, "tidy_fn")).writes).toBe(1);
    expect([dropped, flat].filter((p) => existsSync(p))).toEqual([]);
    expect(existsSync(foreign)).toBe(true);
    expect(existsSync(await databaseDir(b))).toBe(true);
    rmSync(foreign);
  });
});

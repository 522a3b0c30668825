// Stress run of the language handler (`make -C plv8 stress`, not part of `make test`): on one
// connection, 1,000 calls alternating out-of-memory, timeout, cancel and normal calls, then
// 1,000 out-of-memory failures in a row. Every normal call must answer correctly, the backend
// must stay the same process, and its memory must not grow.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { backendPid, fatalLogLines, pgError, plv8Database, privateKb, waitUntilRunning } from "./support";

const growers = [
  "const a = []; for (;;) a.push(new Array(1 << 16).fill(0.5));",
  "const m = new Map(); for (let i = 0;; i++) m.set(i, { i });",
  "const o = {}; for (let i = 0;; i++) o['k' + i] = i;",
  "let a = [1]; for (;;) a = [...a, ...a];",
];

type Kind = "oom" | "timeout" | "cancel" | "normal";
const kinds: Kind[] = ["oom", "timeout", "cancel", "normal"];

describe("plv8 stress", () => {
  let db: TestDatabase;
  let client: pg.Client;
  let observer: pg.Client;
  beforeAll(async () => {
    db = await plv8Database();
    const growFns = growers.map((body, i) => `create function grow${i}() returns int as $$ ${body} $$ language plv8;`);
    await db.query(`
      ${growFns.join("\n")}
      create table items (id int primary key, name text);
      insert into items select g, 'item ' || g from generate_series(1, 50) g;
      create function inner_sum(n int) returns int as $$ return plv8.execute('select sum(id)::int as s from items where id <= $1', [n])[0].s; $$ language plv8;
      create function normal(i int) returns jsonb as $$
        const n = i % 50 + 1;
        const name = plv8.execute('select name from items where id = $1', [n])[0].name;
        const sum = plv8.execute('select inner_sum($1) as s', [n])[0].s;
        return { i, name, sum, squares: [1, 2, 3].map(x => x * x), text: JSON.stringify({ n }) };
      $$ language plv8;
      create function spin() returns int as $$ /*spin*/ let n = 0; for (;;) n++; $$ language plv8;
    `);
    client = await db.connect();
    observer = await db.connect();
    await client.query("set plv8.memory_limit = 16");
  });
  afterAll(async () => {
    await db.drop();
  });

  async function one(kind: Kind, i: number, pid: number): Promise<boolean> {
    switch (kind) {
      case "oom": {
        const err = await pgError(client.query(`select grow${i % growers.length}()`));
        return err.code === "53200" && err.message === "Out of memory error";
      }
      case "timeout": {
        // Alternately PostgreSQL's statement_timeout and plv8.execution_timeout (whole seconds).
        const plv8Clock = i % 8 === 1;
        await client.query(plv8Clock ? "set plv8.execution_timeout = 1" : "set statement_timeout = 20");
        const err = await pgError(client.query("select spin()"));
        await client.query(plv8Clock ? "reset plv8.execution_timeout" : "reset statement_timeout");
        const expected = plv8Clock ? "execution timeout exceeded" : "canceling statement due to statement timeout";
        return err.code === "57014" && err.message === expected;
      }
      case "cancel": {
        const running = pgError(client.query("select spin()"));
        await waitUntilRunning(observer, pid, "spin()");
        await observer.query("select pg_cancel_backend($1)", [pid]);
        const err = await running;
        return err.code === "57014" && err.message === "canceling statement due to user request";
      }
      case "normal": {
        const { rows } = await client.query("select normal($1) as v", [i]);
        const n = (i % 50) + 1;
        const v = rows[0].v;
        return (
          v.i === i && v.name === `item ${n}` && v.sum === (n * (n + 1)) / 2 && v.squares.join() === "1,4,9" && v.text === `{"n":${n}}`
        );
      }
      default: {
        const never: never = kind;
        throw new Error(`unknown kind ${String(never)}`);
      }
    }
  }

  it("survives 1,000 alternating out-of-memory, timeout, cancel and normal calls on one connection", async () => {
    const pid = await backendPid(client);
    const right: Record<Kind, number> = { oom: 0, timeout: 0, cancel: 0, normal: 0 };
    let lost = 0;
    let after100 = 0;
    const started = Date.now();
    for (let i = 0; i < 1000; i++) {
      const kind = kinds[i % kinds.length];
      if (await one(kind, i, pid)) right[kind]++;
      if ((await backendPid(client)) !== pid) lost++;
      if (i === 99) after100 = privateKb(pid);
    }
    const after1000 = privateKb(pid);
    console.log(
      `stress: 1000 alternating calls in ${((Date.now() - started) / 1000).toFixed(0)} s: ` +
        `out-of-memory ${right.oom}/250, timeout ${right.timeout}/250, cancel ${right.cancel}/250, ` +
        `normal correct ${right.normal}/250, backends lost ${lost}, ` +
        `private memory ${after100} kB after 100 calls, ${after1000} kB after 1000`,
    );
    expect(right).toEqual({ oom: 250, timeout: 250, cancel: 250, normal: 250 });
    expect(lost).toBe(0);
    expect(fatalLogLines(pid)).toEqual([]);
    expect(after1000).toBeLessThanOrEqual(after100 * 1.1);
  });

  it("keeps memory flat over 1,000 out-of-memory failures in a row", async () => {
    const pid = await backendPid(client);
    let failed = 0;
    let after100 = 0;
    for (let i = 0; i < 1000; i++) {
      if (await one("oom", i, pid)) failed++;
      if (i === 99) after100 = privateKb(pid);
    }
    const after1000 = privateKb(pid);
    const v = (await client.query("select normal(7) as v, pg_backend_pid() as pid")).rows[0];
    console.log(
      `stress: 1000 out-of-memory failures in a row: ${failed}/1000 ended with "Out of memory error", ` +
        `same backend ${v.pid === pid}, private memory ${after100} kB after 100, ${after1000} kB after 1000`,
    );
    expect(failed).toBe(1000);
    expect(v.pid).toBe(pid);
    expect(v.v.sum).toBe(36);
    expect(fatalLogLines(pid)).toEqual([]);
    expect(after1000).toBeLessThanOrEqual(after100 * 1.1);
  });
});

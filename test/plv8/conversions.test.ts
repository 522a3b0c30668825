import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../harness/db";
import { plv8Database } from "./support";

// Type conversion both ways, as PLV8 does it.
describe("type conversion", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await plv8Database();
    await db.query("create type pair as (i int, t text)");
  });
  afterAll(async () => {
    await db.drop();
  });

  it("maps SQL values to JavaScript types", async () => {
    await db.query(`
      create function js_types() returns jsonb as $$
        const r = plv8.execute(\`select 1::int2 a, 2::int4 b, 3::int8 c, 1.5::float8 d, 2.5::numeric e, 'x'::text f,
          '{"k":1}'::json g, '{"k":[1,2]}'::jsonb h, '\\\\x0102'::bytea i, '2020-01-02'::date j,
          '2020-01-02 03:04:05+00'::timestamptz k, array[1,2] l, row(1,'a')::pair m, null::text n,
          true p, '1 day'::interval q\`)[0];
        const kind = (v) => v === null ? 'null' : v instanceof Date ? 'Date:' + v.toISOString()
          : v instanceof Uint8Array ? 'Uint8Array:' + Array.from(v).join(',')
          : Array.isArray(v) ? 'Array:' + JSON.stringify(v)
          : typeof v === 'object' ? 'object:' + JSON.stringify(v) : typeof v + ':' + String(v);
        const out = {};
        for (const k in r) out[k] = kind(r[k]);
        return out;
      $$ language plv8`);
    const { rows } = await db.query("select js_types() as v");
    expect(rows[0].v).toEqual({
      a: "number:1",
      b: "number:2",
      c: "bigint:3",
      d: "number:1.5",
      e: "number:2.5",
      f: "string:x",
      g: 'object:{"k":1}',
      h: 'object:{"k":[1,2]}',
      i: "Uint8Array:1,2",
      j: "Date:2020-01-02T00:00:00.000Z",
      k: "Date:2020-01-02T03:04:05.000Z",
      l: "Array:[1,2]",
      m: 'object:{"i":1,"t":"a"}',
      n: "null",
      p: "boolean:true",
      q: "string:1 day",
    });
  });

  it("maps JavaScript results back to SQL types", async () => {
    await db.query(`
      create function to_int8() returns int8 as $$ return 9007199254740993n; $$ language plv8;
      create function to_numeric() returns numeric as $$ return 2n ** 70n; $$ language plv8;
      create function to_jsonb() returns jsonb as $$ return { big: 12345678901234567890n, when: new Date(0), gone: undefined }; $$ language plv8;
      create function to_bytea() returns bytea as $$ return new Uint8Array([222, 173, 190, 239]); $$ language plv8;
      create function to_pair() returns pair as $$ return { i: 7, t: 'seven' }; $$ language plv8;
      create function to_array() returns text[] as $$ return ['a', null, 'c']; $$ language plv8;
      create function to_ts() returns timestamptz as $$ return new Date(Date.UTC(2021, 4, 6, 7, 8, 9)); $$ language plv8;
      create function to_set() returns setof pair as $$ plv8.return_next({ i: 1, t: 'x' }); return [{ i: 2, t: 'y' }]; $$ language plv8;
    `);
    const { rows } = await db.query(`
      select to_int8()::text a, to_numeric()::text b, to_jsonb() c, encode(to_bytea(), 'hex') d,
             to_pair()::text e, to_array()::text f, to_ts() = '2021-05-06 07:08:09+00' g,
             (select string_agg(i || t, ',') from to_set()) h`);
    expect(rows[0]).toEqual({
      a: "9007199254740993",
      b: "1180591620717411303424",
      c: { big: "12345678901234567890", when: "1970-01-01T00:00:00.000Z" },
      d: "deadbeef",
      e: "(7,seven)",
      f: "{a,NULL,c}",
      g: true,
      h: "1x,2y",
    });
  });

  it("passes SQL arguments by name, $n and arguments[]", async () => {
    await db.query(`
      create function args_named(a int, b text) returns text as $$ return a + b + arguments[0] + arguments[1]; $$ language plv8;
      create function args_unnamed(int, int) returns int as $$ return $1 * $2; $$ language plv8;
    `);
    const { rows } = await db.query("select args_named(1, 'x') a, args_unnamed(6, 7) b");
    expect(rows[0]).toEqual({ a: "1x1x", b: 42 });
  });

  it("fires triggers with NEW, OLD and TG_* and applies a returned row", async () => {
    await db.query(`
      create table audited (id int, name text, note text);
      create function audit() returns trigger as $$
        NEW.note = [TG_OP, TG_WHEN, TG_LEVEL, TG_TABLE_NAME, TG_TABLE_SCHEMA, TG_ARGV.join('/'), OLD ? OLD.name : '-'].join(' ');
        return NEW;
      $$ language plv8;
      create trigger audited_t before insert or update on audited for each row execute procedure audit('p', 'q');
      insert into audited values (1, 'a');
      update audited set name = 'b';
    `);
    const { rows } = await db.query("select note from audited");
    expect(rows[0].note).toBe("UPDATE BEFORE ROW audited public p/q a");
  });
});

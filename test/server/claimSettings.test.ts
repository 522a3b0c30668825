// The server works out a request's `request.jwt.claim.<name>` settings itself: checked against
// PostgreSQL on random JSON values (its jsonb text), on claims (what jsonb_each made of them
// before), and over HTTP (a function reading the settings through GraphQL).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimSettings, jsonbText, numericText } from "../../server/src/claimSettings";
import { freshDatabase, type TestDatabase } from "../harness/db";
import { graphql, signToken, startTestServer, type TestServer } from "./support";

let db: TestDatabase;
let server: TestServer;

beforeAll(async () => {
  db = await freshDatabase();
  server = await startTestServer({
    schema: `
      create function public.claim_setting(name text) returns text stable language sql
        as $$ select current_setting('request.jwt.claim.' || name, true) $$;
      grant execute on function public.claim_setting(text) to anon, authenticated;`,
  });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

/** A small seeded generator, so a failure comes back the same on the next run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const characters = ["a", "b", "Z", "_", "0", "9", " ", '"', "\\", "/", "\n", "\t", "\u0001", "\u001f", "\u007f", "é", "ß", "中", "😀", "\u2028", "'"];
const numbers = [0, -0, 1, -1, 1900000000, 0.1, -2.5, 1e21, 1.5e-7, 5e-324, 1.7976931348623157e308, 123.456e10, 2 ** 53 + 2, -1e-10, 9.99e-5];

function randomValue(next: () => number, depth: number): unknown {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const text = () => Array.from({ length: Math.floor(next() * 6) }, () => pick(characters)).join("");
  const kind = Math.floor(next() * (depth > 2 ? 5 : 7));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return next() < 0.5 ? pick(numbers) : (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
    case 3:
    case 4:
      return text();
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [text(), randomValue(next, depth + 1)]));
  }
}

describe("claim settings", () => {
  it("prints numbers as numeric does", async () => {
    const texts = numbers.map((n) => JSON.stringify(n));
    const { rows } = await db.query("select t::numeric::text as out from unnest($1::text[]) with ordinality as u(t, i) order by i", [texts]);
    expect(texts.map(numericText)).toEqual(rows.map((r) => r.out));
  });

  it("prints any JSON value as PostgreSQL prints it as jsonb", async () => {
    const next = random(20261123);
    const values = Array.from({ length: 3000 }, () => randomValue(next, 0));
    const { rows } = await db.query("select t::jsonb::text as out from unnest($1::text[]) with ordinality as u(t, i) order by i", [
      values.map((v) => JSON.stringify(v)),
    ]);
    const mismatches = values.flatMap((v, i) => (jsonbText(v) === rows[i].out ? [] : [{ value: JSON.stringify(v), ours: jsonbText(v), postgres: rows[i].out }]));
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it("names and values the settings as the claims' jsonb does", async () => {
    const next = random(7);
    for (let round = 0; round < 200; round++) {
      const claims: Record<string, unknown> = { sub: "00000000-0000-4000-8000-0000000000a1", role: "authenticated", exp: 1900000000 };
      for (let i = 0; i < 6; i++) claims[next() < 0.7 ? `c${i}_${round}` : `https://example.com/${i}`] = randomValue(next, 0);
      const { rows } = await db.query(
        `select c.key as name, case jsonb_typeof(c.value) when 'string' then c.value #>> '{}' else c.value::text end as value
           from jsonb_each($1::jsonb) as c where c.key ~ '^[A-Za-z_][A-Za-z0-9_]*$' order by c.key`,
        [JSON.stringify(claims)],
      );
      const ours = claimSettings(claims);
      const pairs = ours.names.map((name, i) => ({ name, value: ours.values[i] })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      expect(pairs).toEqual(rows);
    }
  });

  it("sets them for the request over HTTP", async () => {
    const token = await signToken({ role: "authenticated", sub: "00000000-0000-4000-8000-0000000000a1", app_metadata: { providers: ["email"], provider: "email" }, exp: Math.floor(Date.now() / 1000) + 600, "https://example.com/x": 1 });
    const query = `{ sub: claim_setting(name: "sub") meta: claim_setting(name: "app_metadata") role: claim_setting(name: "role") }`;
    const answer = await graphql(server, query, { token });
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    expect(answer.data).toEqual({ sub: "00000000-0000-4000-8000-0000000000a1", meta: '{"provider": "email", "providers": ["email"]}', role: "authenticated" });
    // Another identity on the same pooled connections sees only its own: an earlier request's
    // settings end with its transaction (a connection that had them reads them empty).
    const anon = (await graphql(server, query, {})).data!;
    expect({ sub: anon.sub || null, meta: anon.meta || null, role: anon.role }).toEqual({ sub: null, meta: null, role: "anon" });
  });
});

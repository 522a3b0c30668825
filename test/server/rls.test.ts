// Roles over HTTP: the API key or user token picks the role, row level security sees it and the
// claims, anon writes that RLS forbids change nothing, and pooled connections leak no identity.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphql, reflectsTables, runsMutations, signToken, startTestServer, type TestServer } from "./support";

const alice = "00000000-0000-4000-8000-0000000000a1";
const bob = "00000000-0000-4000-8000-0000000000b0";

const schema = `
  comment on schema public is e'@graphql({"inflect_names": true, "introspection": true})';
  create table public.note (
    id serial primary key,
    owner uuid not null default auth.uid(),
    body text not null
  );
  alter table public.note enable row level security;
  create policy note_owner on public.note for all to authenticated
    using (owner = auth.uid()) with check (owner = auth.uid());
  create policy note_public on public.note for select to anon using (body like 'public:%');
  insert into public.note (owner, body) values
    ('${alice}', 'public: hello'), ('${alice}', 'alice private'), ('${bob}', 'bob private');
`;

const notes = "{ noteCollection { edges { node { id owner body } } } }";

let server: TestServer;
let ready = false;
let mutations = false;
let aliceToken: string;
let bobToken: string;

beforeAll(async () => {
  server = await startTestServer({ schema });
  ready = await reflectsTables(server, "noteCollection");
  mutations = ready && (await runsMutations(server, "NoteCollection"));
  aliceToken = await signToken({ role: "authenticated", sub: alice, email: "alice@example.com" });
  bobToken = await signToken({ role: "authenticated", sub: bob });
});
afterAll(async () => server.close());

async function bodies(options: { apiKey?: string; token?: string }): Promise<string[]> {
  const result = await graphql(server, notes, options);
  expect(result.errors).toBeUndefined();
  return result.data!.noteCollection.edges.map((e: { node: { body: string } }) => e.node.body).sort();
}

async function table(): Promise<Array<{ owner: string; body: string }>> {
  return (await server.db.query("select owner, body from public.note order by id")).rows;
}

describe("roles under row level security", () => {
  it("shows each role its own rows", async (ctx) => {
    if (!ready) ctx.skip();
    expect(await bodies({})).toEqual(["public: hello"]);
    expect(await bodies({ token: aliceToken })).toEqual(["alice private", "public: hello"]);
    expect(await bodies({ token: bobToken })).toEqual(["bob private"]);
    expect(await bodies({ apiKey: server.serviceKey })).toEqual(["alice private", "bob private", "public: hello"]);
    // Clients that send the API key as the bearer token too (as supabase-js does) keep its role.
    expect(await bodies({ token: server.anonKey })).toEqual(["public: hello"]);
    expect(await bodies({ token: server.serviceKey })).toHaveLength(3);
  });

  it("answers GET queries as the key's role", async (ctx) => {
    if (!ready) ctx.skip();
    const search = new URLSearchParams({ query: notes });
    const response = await fetch(`${server.endpoint}?${search}`, { headers: { apikey: server.anonKey } });
    expect(response.status).toBe(200);
    const json = (await response.json()) as any;
    expect(json.data.noteCollection.edges.map((e: { node: { body: string } }) => e.node.body)).toEqual(["public: hello"]);
  });

  it("lets SQL see the user's claims (auth.uid() as a column default)", async (ctx) => {
    if (!mutations) ctx.skip();
    const result = await graphql(
      server,
      `mutation { insertIntoNoteCollection(objects: [{ body: "written by alice" }]) { affectedCount records { owner body } } }`,
      { token: aliceToken },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.insertIntoNoteCollection).toEqual({
      affectedCount: 1,
      records: [{ owner: alice, body: "written by alice" }],
    });
    await server.db.query("delete from public.note where body = 'written by alice'");
  });

  it("changes nothing when anon tries writes that RLS forbids", async (ctx) => {
    if (!ready) ctx.skip();
    const before = await table();
    // RLS hides every row from updates and deletes (nothing affected) and rejects the new row.
    const update = `mutation { updateNoteCollection(set: { body: "defaced" }, atMost: 10) { affectedCount } }`;
    expect(await graphql(server, update)).toEqual({ data: { updateNoteCollection: { affectedCount: 0 } } });
    const remove = `mutation { deleteFromNoteCollection(atMost: 10) { affectedCount } }`;
    expect(await graphql(server, remove)).toEqual({ data: { deleteFromNoteCollection: { affectedCount: 0 } } });
    const insert = `mutation { insertIntoNoteCollection(objects: [{ owner: "${alice}", body: "public: spam" }]) { affectedCount } }`;
    expect(await graphql(server, insert)).toEqual({
      data: null,
      errors: [{ message: 'new row violates row-level security policy for table "note"' }],
    });
    expect(await table()).toEqual(before);
  });

  it("never carries one request's identity into the next on a pooled connection", async (ctx) => {
    if (!ready) ctx.skip();
    const rounds = Array.from({ length: 24 }, (_, i) => i);
    const seen = await Promise.all(
      rounds.map(async (i) => (i % 2 === 0 ? bodies({ token: aliceToken }) : bodies({}))),
    );
    rounds.forEach((i) => {
      expect(seen[i]).toEqual(i % 2 === 0 ? ["alice private", "public: hello"] : ["public: hello"]);
    });
    // Settings end with the statement's transaction: a pooled session is back to itself.
    const client = await server.running.app.database.pool.connect();
    const { rows } = await client.query("select current_user as role, current_setting('request.jwt.claims', true) as claims");
    client.release();
    expect(rows[0].role).toBe("authenticator");
    expect(rows[0].claims ?? "").toBe("");
  });
});

describe("schema changes while serving", () => {
  it("shows a table created while the server runs on every pooled connection", async (ctx) => {
    if (!ready) ctx.skip();
    const pool = server.running.app.database.pool;
    const poolSize = 4;
    const burst = () =>
      Promise.all(Array.from({ length: poolSize * 3 }, () => graphql(server, "{ noteCollection(first: 1) { edges { node { id } } } }")));
    await burst(); // every pooled connection has now loaded the schema without the new table
    expect(pool.totalCount).toBe(poolSize);

    await server.db.query(`
      create table public.late (id int primary key, label text);
      insert into public.late values (1, 'arrived late');
      grant select on public.late to anon;`);

    const used = new Set<unknown>();
    const track = (client: unknown) => used.add(client);
    pool.on("acquire", track);
    const results = await Promise.all(
      Array.from({ length: poolSize * 3 }, () => graphql(server, "{ lateCollection { edges { node { label } } } }")),
    );
    pool.off("acquire", track);
    expect(used.size).toBe(poolSize);
    for (const result of results) {
      expect(result.errors).toBeUndefined();
      expect(result.data!.lateCollection.edges).toEqual([{ node: { label: "arrived late" } }]);
    }
  });
});

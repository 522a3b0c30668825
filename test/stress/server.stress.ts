// The server under hostile input and faults: 2,000 random and hostile documents, variable sets,
// bodies and query strings over HTTP answer no 500 and need no statement timeout; pool backends
// killed under load fail only the requests they were running (503), never later ones.
import { afterAll, beforeAll, expect, it } from "vitest";
import { post, reflectsTables, startTestServer, type TestServer } from "../server/support";
import { hostileRequests, type HostileRequest } from "./hostileRequests";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    schema: `
      comment on schema public is e'@graphql({"inflect_names": true})';
      create table public.item (id serial primary key, label text, amount numeric, big bigint, tags text[],
                                created timestamptz default now());
      insert into public.item (label, amount, big, tags) select 'item ' || i, i * 1.5, i * 1000000000000, array['a', 'b']
        from generate_series(1, 50) as i;
      alter table public.item enable row level security;
      create policy item_read on public.item for select using (true);
      create policy item_write on public.item for all to service_role using (true);`,
    config: { poolSize: 4 },
  });
  if (!(await reflectsTables(server, "itemCollection"))) throw new Error("the stress run needs pg_graphql installed");
});
afterAll(async () => server.close());

async function send(request: HostileRequest): Promise<number> {
  const headers = { "content-type": request.contentType, apikey: request.apiKey ?? (Math.random() < 0.5 ? server.anonKey : server.serviceKey) };
  const response =
    request.method === "GET"
      ? await fetch(`${server.endpoint}?${request.payload}`, { headers })
      : await fetch(server.endpoint, { method: "POST", headers, body: request.payload });
  await response.arrayBuffer();
  return response.status;
}

it("answers 2,000 hostile requests without a 500 or a statement timeout", async () => {
  const requests = hostileRequests(2000, Number(process.env.SEED ?? 1));
  const statuses = new Map<number, number>();
  const fivehundreds: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      const status = await send(request);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 500) fivehundreds.push(request.payload.slice(0, 300));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  console.log("statuses:", Object.fromEntries([...statuses].sort(([a], [b]) => a - b)));
  expect(fivehundreds).toEqual([]);
  const metrics = await (await fetch(`${server.running.baseUrl}/metrics`)).text();
  expect(metrics).toContain("pg_graphql_statement_timeouts_total 0");
  // The database is still whole: every backend is alive and a plain query answers.
  expect((await post(server.endpoint, server.anonKey, { query: "{ itemCollection(first: 1) { edges { node { id } } } }" })).status).toBe(200);
});

it("fails only in-flight requests when pool backends are killed under load", async () => {
  const query = { query: "{ itemCollection(first: 20) { edges { node { id label amount } } } }" };
  let stop = false;
  const failures: number[] = [];
  let answered = 0;
  const client = async () => {
    while (!stop) {
      const r = await post(server.endpoint, server.anonKey, query);
      if (r.status === 200 && r.json.data?.itemCollection) answered += 1;
      else failures.push(r.status);
    }
  };
  const clients = Array.from({ length: 8 }, client);
  let killed = 0;
  for (let round = 0; round < 20; round++) {
    await new Promise((r) => setTimeout(r, 100));
    const { rows } = await server.db.query(
      "select count(*) filter (where pg_terminate_backend(pid, 5000))::int as n from pg_stat_activity where usename = 'authenticator' and datname = current_database()",
    );
    killed += rows[0].n;
  }
  stop = true;
  await Promise.all(clients);
  console.log({ answered, killed, failures: failures.length });
  // A killed backend fails at most the one request it was running, always as 503.
  expect(failures.every((s) => s === 503)).toBe(true);
  expect(failures.length).toBeLessThanOrEqual(killed);
  expect(answered).toBeGreaterThan(0);
});

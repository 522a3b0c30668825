// Bench engine: the HTTP floor. Input: DATABASE_URL (the authenticator role), PORT, JWT_CLAIMS.
// Output: POST /graphql on 127.0.0.1 that runs the hand-written SQL of the bench query named in
// the body, as the `authenticated` role, in one round trip, and passes the JSON text through.
import http from "node:http";
import pg from "pg";
import { benchQueries } from "./queries";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

// The role switch and claims live in the same simple-protocol round trip as the query itself:
// the least any engine with per-request identity has to do. The claims are fixed for the bench;
// dollar quoting keeps them a literal.
const claims = env("JWT_CLAIMS");
if (claims.includes("$claims$")) throw new Error("JWT_CLAIMS must not contain the quoting tag");
const statements = new Map(
  benchQueries.map((q) => [
    q.name,
    `begin; set local role authenticated; select set_config('request.jwt.claims', $claims$${claims}$claims$, true); ${q.sql}; commit`,
  ]),
);

const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: Number(process.env.POOL_SIZE ?? 8) });

function answer(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/graphql") return answer(res, 404, '{"message":"not found"}');
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    let name: unknown;
    try {
      name = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { query?: unknown }).query;
    } catch {
      return answer(res, 400, '{"message":"invalid JSON"}');
    }
    const text = typeof name === "string" ? statements.get(name) : undefined;
    if (text === undefined) return answer(res, 400, '{"message":"unknown bench query"}');
    pool.query(text).then(
      (results) => {
        const all = results as unknown as pg.QueryResult[];
        const result = all[3]!.rows[0]?.result as string | null | undefined;
        answer(res, 200, `{"data":{"result":${result ?? "null"}}}`);
      },
      (err: Error) => answer(res, 200, JSON.stringify({ errors: [{ message: err.message }] })),
    );
  });
});

server.listen(Number(env("PORT")), "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});

// Bench engine: PostGraphile v4 over HTTP. Input: DATABASE_URL (the authenticator role), PORT,
// JWT_SECRET from the environment. Output: POST /graphql on 127.0.0.1; each request runs as the
// role in its JWT's `role` claim (set local role, in a transaction, as PostGraphile does).
import http from "node:http";
import pg from "pg";
import { postgraphile } from "postgraphile";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: Number(process.env.POOL_SIZE ?? 8) });
const middleware = postgraphile(pool, "public", {
  jwtSecret: env("JWT_SECRET"),
  jwtVerifyOptions: { audience: "authenticated" },
  pgDefaultRole: "anon",
  disableQueryLog: true,
  retryOnInitFail: false,
  setofFunctionsContainNulls: false,
  enableQueryBatching: false,
  graphiql: false,
});

const server = http.createServer(middleware);
server.listen(Number(env("PORT")), "127.0.0.1", () => {
  process.stdout.write("ready\n");
});
process.on("SIGTERM", () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});

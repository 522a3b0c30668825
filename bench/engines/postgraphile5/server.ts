// Bench engine: PostGraphile v5 (Amber preset) over HTTP. Input: DATABASE_URL (the
// authenticator role), PORT, JWT_SECRET from the environment, and CONNECTION_FILTER=1 for
// postgraphile-plugin-connection-filter with filters across relations. Output: POST /graphql on
// 127.0.0.1; each request runs as the role in its JWT's `role` claim.
import "./polyfill";
import http from "node:http";
import pg from "pg";
import { postgraphile } from "postgraphile";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { PgLazyJWTPreset } from "postgraphile/presets/lazy-jwt";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: Number(process.env.POOL_SIZE ?? 8) });
// Loaded only when asked for: the plain engine's schema stays the plugin-free one.
const connectionFilter = process.env.CONNECTION_FILTER === "1" ? [(await import("postgraphile-plugin-connection-filter")).PostGraphileConnectionFilterPreset] : [];
const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset, PgLazyJWTPreset, ...connectionFilter],
  ...(connectionFilter.length > 0 ? { schema: { connectionFilterRelations: true } } : {}),
  pgServices: [makePgService({ pool, schemas: ["public"], pgSettings: () => ({ role: "anon" }) })],
  grafserv: {
    graphqlPath: "/graphql",
    graphiql: false,
    watch: false,
    pgJwtSecret: env("JWT_SECRET"),
    pgJwtVerifyOptions: { audience: "authenticated" },
  },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = http.createServer();
await serv.addTo(server);
server.listen(Number(env("PORT")), "127.0.0.1", () => {
  process.stdout.write("ready\n");
});
process.on("SIGTERM", () => {
  server.close();
  void pgl.release().finally(() => process.exit(0));
});

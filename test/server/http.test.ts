// The HTTP contract of /graphql/v1 that holds before any GraphQL runs: keys and tokens, paths,
// methods, bodies and CORS. Every refused request must leave the database untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../server/src/serve";
import { signToken, secret, startTestServer, type TestServer } from "./support";

let server: TestServer;
let acquired = 0;

beforeAll(async () => {
  server = await startTestServer({ extension: false, config: { bodyLimit: 4096 } });
  server.running.app.database.pool.on("acquire", () => {
    acquired += 1;
  });
});
afterAll(async () => server.close());

const query = { query: "{ __typename }", variables: {} };

async function send(init: RequestInit & { headers?: Record<string, string> }, path = "/graphql/v1") {
  const response = await fetch(`${server.running.baseUrl}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : undefined };
}

function postWith(headers: Record<string, string>, body: string = JSON.stringify(query), path?: string) {
  return send({ method: "POST", headers: { "content-type": "application/json", ...headers }, body }, path);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

describe("API keys", () => {
  it("refuses a request without an apiKey header", async () => {
    const r = await postWith({});
    expect(r.status).toBe(401);
    expect(r.body.message).toMatch(/API key/);
  });

  it("refuses a key the project did not issue", async () => {
    for (const key of ["not-a-jwt", await signToken({ role: "anon" }, "another-secret-that-is-long-enough-too")]) {
      const r = await postWith({ apikey: key });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: "Invalid API key" });
    }
  });

  it("refuses a token signed with the secret whose role is not a key's role", async () => {
    const r = await postWith({ apikey: await signToken({ role: "authenticated" }) });
    expect(r.status).toBe(401);
  });
});

describe("user tokens", () => {
  const user = { role: "authenticated", sub: "00000000-0000-4000-8000-000000000001" };

  it("refuses an expired token", async () => {
    const expired = await signToken(user, secret, Math.floor(Date.now() / 1000) - 60);
    const r = await postWith({ apikey: server.anonKey, authorization: `Bearer ${expired}` });
    expect(r.status).toBe(401);
    expect(r.body.message).toMatch(/expired/);
  });

  it("refuses a token that is not valid yet", async () => {
    const early = await signToken({ ...user, nbf: Math.floor(Date.now() / 1000) + 3600 });
    const r = await postWith({ apikey: server.anonKey, authorization: `Bearer ${early}` });
    expect(r.status).toBe(401);
  });

  it("refuses a tampered token", async () => {
    const [header, , signature] = (await signToken(user)).split(".");
    const forged = `${header}.${base64url({ ...user, role: "service_role" })}.${signature}`;
    const r = await postWith({ apikey: server.anonKey, authorization: `Bearer ${forged}` });
    expect(r.status).toBe(401);
    expect(r.body.message).toMatch(/signature/);
  });

  it("refuses an unsigned token (alg none)", async () => {
    const unsigned = `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ ...user, exp: Date.now() / 1000 + 60 })}.`;
    const r = await postWith({ apikey: server.anonKey, authorization: `Bearer ${unsigned}` });
    expect(r.status).toBe(401);
  });

  it("refuses a token signed with another secret", async () => {
    const wrong = await signToken(user, "a-different-secret-of-sufficient-length!!");
    const r = await postWith({ apikey: server.anonKey, authorization: `Bearer ${wrong}` });
    expect(r.status).toBe(401);
  });

  it("refuses a token naming a role other than the API roles", async () => {
    for (const role of ["postgres", "authenticator"]) {
      const token = await signToken({ sub: user.sub, ...(role ? { role } : {}) });
      const r = await postWith({ apikey: server.anonKey, authorization: `Bearer ${token}` });
      expect(r.status).toBe(401);
      expect(r.body.message).toMatch(/role/);
    }
  });

  it("refuses an Authorization header that is not a bearer token", async () => {
    const r = await postWith({ apikey: server.anonKey, authorization: "Basic dXNlcjpwYXNz" });
    expect(r.status).toBe(401);
  });
});

describe("paths, methods and bodies", () => {
  const anon = () => ({ apikey: server.anonKey });

  it("has no endpoint at the path with a trailing slash", async () => {
    const r = await postWith(anon(), undefined, "/graphql/v1/");
    expect(r.status).toBe(404);
    expect(typeof r.body.message).toBe("string");
  });

  it("answers other methods with 405 and the allowed ones", async () => {
    const r = await send({ method: "DELETE", headers: anon() });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toContain("POST");
    expect(typeof r.body.message).toBe("string");
  });

  it("refuses mutations over GET", async () => {
    const search = new URLSearchParams({ query: "mutation { deleteFromAccountCollection { affectedCount } }" });
    const r = await send({ method: "GET", headers: anon() }, `/graphql/v1?${search}`);
    expect(r.status).toBe(405);
    expect(r.body.message).toMatch(/POST/);
  });

  it("refuses a body that is not JSON", async () => {
    const r = await send({ method: "POST", headers: { ...anon(), "content-type": "text/plain" }, body: "{ __typename }" });
    expect(r.status).toBe(415);
    expect(typeof r.body.message).toBe("string");
  });

  it("refuses unparsable JSON", async () => {
    const r = await postWith(anon(), '{"query": ');
    expect(r.status).toBe(400);
    expect(typeof r.body.message).toBe("string");
  });

  it("refuses JSON that is not a GraphQL request", async () => {
    for (const body of ["[1, 2]", '"{ __typename }"', "{}", '{"query": 1}', '{"query": "{ a }", "variables": [1]}', '{"query": "{ a }", "operationName": 2}']) {
      const r = await postWith(anon(), body);
      expect(r.status, body).toBe(400);
      expect(typeof r.body.message).toBe("string");
    }
  });

  it("refuses a body over the size limit", async () => {
    const r = await postWith(anon(), JSON.stringify({ query: `{ __typename }${" ".repeat(8192)}` }));
    expect(r.status).toBe(413);
    expect(typeof r.body.message).toBe("string");
  });

  it("touched the database for none of the refused requests", () => {
    expect(acquired).toBe(0);
  });
});

describe("CORS and health", () => {
  it("lets browsers send apikey, authorization and content-type", async () => {
    const r = await send({
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3000",
        "access-control-request-method": "POST",
        "access-control-request-headers": "apikey,authorization,content-type",
      },
    });
    expect(r.status).toBe(204);
    const allowed = (r.headers.get("access-control-allow-headers") ?? "").split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(["apikey", "authorization", "content-type"]));
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("is live, but not ready while the database lacks pg_graphql, and says so per query", async () => {
    expect(await send({ method: "GET" }, "/health/live")).toMatchObject({ status: 200, body: { status: "ok" } });
    const message = "pg_graphql is not installed in this database: a superuser must run `create extension pg_graphql cascade`";
    for (const path of ["/health", "/health/ready"]) {
      expect(await send({ method: "GET" }, path)).toMatchObject({ status: 503, body: { message } });
    }
    expect(await postWith({ apikey: server.anonKey })).toMatchObject({ status: 503, body: { message } });
  });
});

describe("without a database", () => {
  it("answers 503 with a message, for health and for GraphQL", async () => {
    const down = await serve({
      ...server.running.app.config,
      // A database that does not exist: every connection attempt is refused.
      databaseUrl: server.db.url.replace(/\/test_[^?]*/, "/no_such_database"),
      port: 0,
    });
    try {
      const health = await fetch(`${down.baseUrl}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ message: "The database is unavailable" });
      expect((await fetch(`${down.baseUrl}/health/live`)).status).toBe(200);
      const response = await fetch(`${down.baseUrl}/graphql/v1`, {
        method: "POST",
        headers: { "content-type": "application/json", apikey: server.anonKey },
        body: JSON.stringify(query),
      });
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ message: "The database is unavailable" });
    } finally {
      await down.app.close();
    }
  });
});

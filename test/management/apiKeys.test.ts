// A project's API keys over real HTTP: legacy JWT keys, publishable and secret keys (masked
// unless revealed), each calling the data API with the role it maps to; deleting a key or turning
// the legacy keys off refuses them on the next request in two server processes over one platform;
// no key of one project opens another.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestWithHost, roleOnBoth, twoProcessesWithProjects, whoami, type TwoProcesses } from "./projectSupport";
import { adminQuery } from "./support";

let both: TwoProcesses;
beforeAll(async () => {
  both = await twoProcessesWithProjects("keys");
});
afterAll(async () => both?.close());
const call = (method: string, path: string, body?: unknown) => both.call(method, path, body);
const keysPath = () => `/v1/projects/${both.project.ref}/api-keys`;

const onBoth = (ref: string, apiKey: string) => roleOnBoth(both, ref, apiKey);

describe("legacy keys", () => {
  it("run as anon and service_role", async () => {
    expect(await onBoth(both.project.ref, both.project.anon)).toBe("anon");
    expect(await onBoth(both.project.ref, both.project.serviceRole)).toBe("service_role");
  });

  it("are refused at once in every process when turned off, and work again when turned on", async () => {
    expect((await call("GET", `${keysPath()}/legacy`)).body).toEqual({ enabled: true });
    const off = await call("PUT", `${keysPath()}/legacy?enabled=false`);
    expect(off).toMatchObject({ status: 200, body: { enabled: false } });
    expect(await onBoth(both.project.ref, both.project.anon)).toBe(401);
    expect((await whoami(both.second.baseUrl, both.project.ref, both.project.serviceRole)).message).toMatch(/Legacy API keys are disabled/);
    expect(await onBoth(both.other.ref, both.other.anon)).toBe("anon");
    expect((await call("PUT", `${keysPath()}/legacy?enabled=true`)).body).toEqual({ enabled: true });
    expect(await onBoth(both.project.ref, both.project.anon)).toBe("anon");
  });

  it("refuses a missing or non-boolean enabled with 400, changing nothing", async () => {
    expect((await call("PUT", `${keysPath()}/legacy`)).status).toBe(400);
    expect((await call("PUT", `${keysPath()}/legacy?enabled=maybe`)).status).toBe(400);
    expect((await call("GET", `${keysPath()}/legacy`)).body).toEqual({ enabled: true });
  });
});

describe("publishable and secret keys", () => {
  let publishable: any;
  let secret: any;
  let templated: any;

  it("are made in the hosted format and shown whole once", async () => {
    const p = await call("POST", keysPath(), { type: "publishable", name: "web_app", description: "browser" });
    expect(p.status).toBe(201);
    expect(p.body).toMatchObject({ type: "publishable", name: "web_app", description: "browser", secret_jwt_template: null });
    expect(p.body.api_key).toMatch(/^sb_publishable_[A-Za-z0-9_-]{32}$/);
    const s = await call("POST", keysPath(), { type: "secret", name: "backend" });
    expect(s.status).toBe(201);
    expect(s.body.api_key).toMatch(/^sb_secret_[A-Za-z0-9_-]{32}$/);
    expect(s.body).toMatchObject({ prefix: s.body.api_key.slice(0, 14), secret_jwt_template: { role: "service_role" } });
    const t = await call("POST", keysPath(), { type: "secret", name: "as_user", secret_jwt_template: { role: "authenticated", sub: "user-1" } });
    expect(t.status).toBe(201);
    [publishable, secret, templated] = [p.body, s.body, t.body];
  });

  it("mask secret keys unless revealed; publishable keys and legacy keys are shown whole", async () => {
    const listed = (await call("GET", keysPath())).body;
    expect(listed.map((k: any) => k.name)).toEqual(["anon", "service_role", "web_app", "backend", "as_user"]);
    const byName = Object.fromEntries(listed.map((k: any) => [k.name, k]));
    expect(byName.anon.api_key).toBe(both.project.anon);
    expect(byName.web_app.api_key).toBe(publishable.api_key);
    expect(byName.backend.api_key).not.toContain(secret.api_key.slice(14));
    expect(byName.backend.api_key.startsWith(secret.prefix)).toBe(true);
    const revealed = (await call("GET", `${keysPath()}?reveal=true`)).body;
    expect(revealed.find((k: any) => k.name === "backend").api_key).toBe(secret.api_key);
    const one = await call("GET", `${keysPath()}/${secret.id}`);
    expect(one.body.api_key).not.toBe(secret.api_key);
    expect((await call("GET", `${keysPath()}/${secret.id}?reveal=true`)).body.api_key).toBe(secret.api_key);
  });

  it("call the data API as anon, service_role, or the secret key's template", async () => {
    expect(await onBoth(both.project.ref, publishable.api_key)).toBe("anon");
    expect(await onBoth(both.project.ref, secret.api_key)).toBe("service_role");
    const asUser = await whoami(both.platform.baseUrl, both.project.ref, templated.api_key);
    expect(asUser).toMatchObject({ status: 200, role: "authenticated", claims: { role: "authenticated", sub: "user-1" } });
  });

  it("open the project through its host too", async () => {
    const byHost = (apiKey: string) =>
      requestWithHost(both.platform.baseUrl, `${both.project.ref}.projects.example.test`, "/graphql/v1", {
        method: "POST",
        headers: { apikey: apiKey, "content-type": "application/json" },
        body: JSON.stringify({ query: "{ whoami }" }),
      });
    expect((await byHost(secret.api_key)).body.data.whoami).toMatch(/^service_role /);
    expect((await byHost(publishable.api_key)).body.data.whoami).toMatch(/^anon /);
    const otherHost = await requestWithHost(both.platform.baseUrl, `${both.other.ref}.projects.example.test`, "/graphql/v1", {
      method: "POST",
      headers: { apikey: secret.api_key, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(otherHost).toEqual({ status: 401, body: { message: "Invalid API key" } });
  });

  it("never open another project", async () => {
    for (const key of [publishable.api_key, secret.api_key, both.project.anon, both.project.serviceRole]) {
      const r = await whoami(both.platform.baseUrl, both.other.ref, key);
      expect(r).toEqual({ status: 401, message: "Invalid API key" });
    }
  });

  it("refuse bad input with 400 or 409 and store nothing", async () => {
    const before = (await call("GET", keysPath())).body.length;
    const bad: [unknown, number, RegExp][] = [
      [{ type: "secret", name: "Bad-Name" }, 400, /name/],
      [{ type: "secret", name: "abc" }, 400, /name/],
      [{ type: "secret", name: "a".repeat(65) }, 400, /name/],
      [{ type: "legacy", name: "legacy_one" }, 400, /type/],
      [{ name: "no_type" }, 400, /type/],
      [{ type: "publishable", name: "with_template", secret_jwt_template: { role: "anon" } }, 400, /secret keys only/],
      [{ type: "secret", name: "bad_role", secret_jwt_template: { role: "postgres" } }, 400, /role must be one of/],
      [{ type: "secret", name: "backend" }, 409, /already exists/],
    ];
    for (const [body, status, message] of bad) {
      const r = await call("POST", keysPath(), body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.message).toMatch(message);
    }
    expect((await call("GET", keysPath())).body.length).toBe(before);
    expect((await call("GET", `${keysPath()}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await call("GET", `${keysPath()}/not-a-uuid`)).status).toBe(400);
  });

  it("are renamed and re-described by PATCH; a taken name is refused", async () => {
    const r = await call("PATCH", `${keysPath()}/${publishable.id}`, { name: "web_app_v2", description: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: "web_app_v2", description: null, api_key: publishable.api_key });
    expect((await call("PATCH", `${keysPath()}/${publishable.id}`, { name: "backend" })).status).toBe(409);
    expect((await call("PATCH", `${keysPath()}/${publishable.id}`, { secret_jwt_template: { role: "anon" } })).status).toBe(400);
  });

  it("a changed template takes effect on the next request", async () => {
    const r = await call("PATCH", `${keysPath()}/${templated.id}`, { secret_jwt_template: { role: "anon", app: "x" } });
    expect(r.status).toBe(200);
    expect(await whoami(both.second.baseUrl, both.project.ref, templated.api_key)).toMatchObject({ role: "anon", claims: { role: "anon", app: "x" } });
  });

  it("once deleted are refused at once in every process; the reason is kept", async () => {
    expect(await onBoth(both.project.ref, secret.api_key)).toBe("service_role");
    const r = await call("DELETE", `${keysPath()}/${secret.id}?was_compromised=true&reason=leaked_in_logs`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: secret.id, name: "backend" });
    expect(await onBoth(both.project.ref, secret.api_key)).toBe(401);
    expect((await call("GET", `${keysPath()}/${secret.id}`)).status).toBe(404);
    const [row] = await adminQuery(both.platform.platformUrl, "select was_compromised, deletion_reason from platform.project_api_keys where id = $1", [secret.id]);
    expect(row).toEqual({ was_compromised: true, deletion_reason: "leaked_in_logs" });
    expect(await onBoth(both.project.ref, publishable.api_key)).toBe("anon");
  });

  it("are not reachable through another project's path", async () => {
    expect((await call("GET", `/v1/projects/${both.other.ref}/api-keys/${publishable.id}`)).status).toBe(404);
    expect((await call("DELETE", `/v1/projects/${both.other.ref}/api-keys/${publishable.id}`)).status).toBe(404);
    expect(await onBoth(both.project.ref, publishable.api_key)).toBe("anon");
  });
});

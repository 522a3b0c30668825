// What the Management API refuses, and that a refusal changes nothing: bad input (4xx with a
// message, no row, no database), other users' organizations and projects (indistinguishable from
// unknown ones), keys of one project at another, what a project's roles may not do, a create
// that fails at any step (nothing left behind), and the start-up reconciler.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignJWT } from "jose";
import pg from "pg";
import { clusterInfo } from "../harness/db";
import { projectNames } from "../../server/src/management/tenants/projectNames";
import { ServerDoor } from "../../server/src/management/door/superuserDoor";
import { scramVerifier } from "../../server/src/management/tenants/scramVerifier";
import type { ProvisionStep } from "../../server/src/management/projects/provisioner";
import { adminQuery, api, clusterUrl, graphqlAt, startPlatform, tracesOf, type TestPlatform } from "./support";

let platform: TestPlatform;
let failAt: ProvisionStep | undefined;
/** Every ref the provisioner started to make (other test files share the cluster, so its
 * databases and roles are looked up by these refs, not counted). */
const started: string[] = [];
/** When set, called while a create is between its steps (after the database is made). */
let duringCreate: ((ref: string) => Promise<void>) | undefined;
const users: Record<"alice" | "bob", { token: string; slug: string; ref: string; anon: string; secret: string }> = {} as never;
const server = () => clusterUrl(clusterInfo());

async function snapshot() {
  const [orgs, projects] = await Promise.all([
    adminQuery(platform.platformUrl, "select count(*)::int as n from platform.organizations"),
    adminQuery(platform.platformUrl, "select count(*)::int as n from platform.projects"),
  ]);
  return { orgs: orgs[0].n, projects: projects[0].n, started: started.length };
}

beforeAll(async () => {
  platform = await startPlatform({
    // The injected failures are logged as errors; the test checks their effects instead.
    logLevel: "fatal",
    checkpoint: async (step, ref) => {
      if (step === "recorded") started.push(ref);
      if (step === "database") await duringCreate?.(ref);
      if (step === failAt) throw new Error(`injected failure after ${step}`);
    },
  });
  for (const name of ["alice", "bob"] as const) {
    const token = await platform.token(`${name}@example.com`);
    const org = await api(platform.baseUrl, token, "POST", "/v1/organizations", { name: `${name}'s org` });
    const project = await api(platform.baseUrl, token, "POST", "/v1/projects", {
      name: `${name}-app`,
      organization_slug: org.body.slug,
      region: "us-east-1",
      db_pass: `${name}-password`,
    });
    const keys = await api(platform.baseUrl, token, "GET", `/v1/projects/${project.body.ref}/api-keys`);
    const secret = (await adminQuery(platform.platformUrl, "select jwt_secret from platform.projects where ref = $1", [project.body.ref]))[0].jwt_secret;
    users[name] = { token, slug: org.body.slug, ref: project.body.ref, anon: keys.body[0].api_key, secret };
  }
});
afterAll(async () => {
  for (const u of Object.values(users)) await api(platform.baseUrl, u.token, "DELETE", `/v1/projects/${u.ref}`);
  await platform.close();
});

/** Alice creates a project named `name` in her organization. */
function createAs(name: string) {
  return api(platform.baseUrl, users.alice.token, "POST", "/v1/projects", { name, organization_slug: users.alice.slug, region: "us-east-1", db_pass: "pw" });
}

describe("bad input", () => {
  const alice = () => users.alice;
  const create = (body: unknown) => api(platform.baseUrl, alice().token, "POST", "/v1/projects", body);
  const good = () => ({ name: "x", organization_slug: alice().slug, region: "us-east-1", db_pass: "pw" });

  it("refuses malformed bodies, wrong types, missing or extra fields and long names with 400, creating nothing", async () => {
    const before = await snapshot();
    const cases: Array<[unknown, RegExp]> = [
      ['{"name": "x",', /JSON/],
      [{ ...good(), name: 123 }, /name must be string/],
      [{ ...good(), db_pass: 12345 }, /db_pass must be string/],
      [{ ...good(), region: "mars-1" }, /region must be equal to one of the allowed values/],
      [{ ...good(), name: "n".repeat(257) }, /name must NOT have more than 256 characters/],
      [{ ...good(), name: "" }, /name must NOT have fewer than 1 characters/],
      [{ ...good(), extra: true }, /must NOT have additional properties/],
      [{ ...good(), template_url: "https://example.com/t.zip" }, /template_url is not supported/],
      [{ ...good(), region_selection: { type: "specific", code: "us-east-1" } }, /Only one of region or region_selection/],
      [{ name: "x", region: "us-east-1", db_pass: "pw" }, /organization_slug/],
      [{ name: "x", organization_slug: alice().slug, db_pass: "pw" }, /region/],
      [{ organization_slug: alice().slug, region: "us-east-1", db_pass: "pw" }, /must have required property 'name'/],
      [[good()], /must be object/],
    ];
    for (const [body, message] of cases) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    const org = await api(platform.baseUrl, alice().token, "POST", "/v1/organizations", { name: "n".repeat(257) });
    expect(org.status).toBe(400);
    expect((await api(platform.baseUrl, alice().token, "POST", "/v1/organizations", {})).status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  it("refuses bad refs and query values with 400, and unknown refs with 403", async () => {
    const bad = await api(platform.baseUrl, alice().token, "GET", "/v1/projects/NOT-A-REF");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/ref/);
    const unknown = await api(platform.baseUrl, alice().token, "GET", `/v1/projects/${"q".repeat(20)}`);
    expect(unknown.status).toBe(403);
    expect(unknown.body.message).toMatch(/privileges/);
    const noServices = await api(platform.baseUrl, alice().token, "GET", `/v1/projects/${alice().ref}/health`);
    expect(noServices.status).toBe(400);
    const badLimit = await api(platform.baseUrl, alice().token, "GET", `/v1/organizations/${alice().slug}/projects?limit=0`);
    expect(badLimit.status).toBe(400);
    const badRename = await api(platform.baseUrl, alice().token, "PATCH", `/v1/projects/${alice().ref}`, { name: 7 });
    expect(badRename.status).toBe(400);
    expect((await api(platform.baseUrl, alice().token, "GET", `/v1/projects/${alice().ref}`)).body.name).toBe("alice-app");
  });

  it("takes an empty JSON body as no body: fine for pause and restore, a 400 where a body is needed", async () => {
    const { token, ref } = users.alice;
    const json = { "content-type": "application/json" };
    expect((await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/pause`, undefined, json)).status).toBe(200);
    expect((await api(platform.baseUrl, token, "POST", `/v1/projects/${ref}/restore`, undefined, json)).status).toBe(200);
    const empty = await api(platform.baseUrl, token, "POST", "/v1/organizations", undefined, json);
    expect(empty.status).toBe(400);
    expect(empty.body.message).toMatch(/body must be object/);
  });

  it("refuses bad requests at a project's GraphQL endpoint without touching its database", async () => {
    const endpoint = `${platform.baseUrl}/project/${users.alice.ref}/graphql/v1`;
    const noKey = await api(platform.baseUrl, undefined, "POST", `/project/${users.alice.ref}/graphql/v1`, { query: "{ __typename }" });
    expect(noKey.status).toBe(401);
    const headers = { "content-type": "application/json", apikey: users.alice.anon };
    const malformed = await fetch(endpoint, { method: "POST", headers, body: '{"query": ' });
    expect(malformed.status).toBe(400);
    const notGraphql = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify({ query: 1 }) });
    expect(notGraphql.status).toBe(400);
    expect(((await notGraphql.json()) as { message: string }).message).toMatch(/query/);
    const mutationOverGet = await fetch(`${endpoint}?query=${encodeURIComponent("mutation { __typename }")}`, { headers: { apikey: users.alice.anon } });
    expect(mutationOverGet.status).toBe(405);
    expect((await graphqlAt(endpoint, users.alice.anon, "{ __typename }")).status).toBe(200);
  });

  it("answers 404 with a message for paths it does not serve", async () => {
    const r = await api(platform.baseUrl, alice().token, "GET", "/v1/nothing-here");
    expect(r.status).toBe(404);
    expect(r.body.message).toMatch(/Not found/);
  });
});

describe("isolation between users", () => {
  it("keeps each user's organizations and projects out of the other's lists", async () => {
    const orgs = await api(platform.baseUrl, users.bob.token, "GET", "/v1/organizations");
    expect(orgs.body.map((o: { slug: string }) => o.slug)).toEqual([users.bob.slug]);
    const projects = await api(platform.baseUrl, users.bob.token, "GET", "/v1/projects");
    expect(projects.body.map((p: { ref: string }) => p.ref)).toEqual([users.bob.ref]);
  });

  it("answers every access to another user's resources exactly as for unknown ones", async () => {
    const { ref, slug } = users.alice;
    const unknownRef = "q".repeat(20);
    const attempts: Array<[string, string, unknown?]> = [
      ["GET", `/v1/organizations/${slug}`],
      ["GET", `/v1/organizations/${slug}/members`],
      ["GET", `/v1/organizations/${slug}/projects`],
      ["GET", `/v1/projects/available-regions?organization_slug=${slug}`],
      ["POST", "/v1/projects", { name: "intruder", organization_slug: slug, region: "us-east-1", db_pass: "pw" }],
      ...["", "/api-keys", "/health?services=db", "/restore"].map((p): [string, string] => ["GET", `/v1/projects/${ref}${p}`]),
      ["PATCH", `/v1/projects/${ref}`, { name: "taken" }],
      ["POST", `/v1/projects/${ref}/pause`],
      ["POST", `/v1/projects/${ref}/restore`],
      ["DELETE", `/v1/projects/${ref}`],
    ];
    const before = await snapshot();
    for (const [method, path, body] of attempts) {
      const theirs = await api(platform.baseUrl, users.bob.token, method, path, body);
      const unknown = await api(platform.baseUrl, users.bob.token, method, path.replace(ref, unknownRef).replace(slug, "unknownslug"), body);
      expect(theirs.status, `${method} ${path}`).toBe(403);
      expect(theirs.body).toEqual(unknown.body);
    }
    expect(await snapshot()).toEqual(before);
    const own = await api(platform.baseUrl, users.alice.token, "GET", `/v1/projects/${ref}`);
    expect(own.body).toMatchObject({ name: "alice-app", status: "ACTIVE_HEALTHY" });
  });

  it("refuses one project's keys and JWTs at another project's endpoint", async () => {
    const bobEndpoint = `${platform.baseUrl}/project/${users.bob.ref}/graphql/v1`;
    expect((await graphqlAt(bobEndpoint, users.bob.anon, "{ __typename }")).status).toBe(200);
    const withAliceKey = await graphqlAt(bobEndpoint, users.alice.anon, "{ __typename }");
    expect(withAliceKey.status).toBe(401);
    const aliceServiceJwt = await new SignJWT({ role: "service_role" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(users.alice.secret));
    const r = await fetch(bobEndpoint, {
      method: "POST",
      headers: { "content-type": "application/json", apikey: users.bob.anon, authorization: `Bearer ${aliceServiceJwt}` },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(r.status).toBe(401);
  });
});

describe("what a project's roles may do", () => {
  const connectAs = async (user: string, database: string) => {
    const client = new pg.Client({ connectionString: clusterUrl(clusterInfo(), database, user) });
    client.on("error", () => {});
    await client.connect();
    return client;
  };

  it("lets the owner into its own database only", async () => {
    const { ref } = users.alice;
    const names = projectNames(ref);
    // (`postgres` is the operator's: a single-database deployment may serve from it.)
    for (const database of [users.bob.ref, platform.platformDatabase, "pg_graphql_project_template", "template1"]) {
      await expect(connectAs(names.owner, database), database).rejects.toThrow();
      await expect(connectAs(names.authenticator, database), database).rejects.toThrow();
    }
    const owner = await connectAs(names.owner, ref);
    try {
      const me = await owner.query(
        `select rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls,
                pg_has_role(current_user, 'pg_read_server_files', 'member') as read_files,
                pg_has_role(current_user, 'pg_execute_server_program', 'member') as run_programs,
                pg_has_role(current_user, 'pg_write_server_files', 'member') as write_files
           from pg_roles where rolname = current_user`,
      );
      expect(me.rows[0]).toEqual({
        rolsuper: false,
        rolcreaterole: false,
        rolcreatedb: false,
        rolreplication: false,
        rolbypassrls: false,
        read_files: false,
        run_programs: false,
        write_files: false,
      });
      await expect(owner.query("alter system set work_mem = '1GB'")).rejects.toThrow(/permission denied/);
      await expect(owner.query("select pg_read_file('postgresql.conf')")).rejects.toThrow(/permission denied/);
      await expect(owner.query("copy (select 1) to program 'true'")).rejects.toThrow(/permission denied|must be superuser/);
      await expect(owner.query("grant pg_execute_server_program to current_user")).rejects.toThrow(/permission denied|must have admin option/);
      // The owner works in its own database as a hosted project's `postgres` role does.
      await owner.query("create table notes (id int primary key, body text)");
      const grants = await owner.query("select has_table_privilege('anon', 'notes', 'select') as anon");
      expect(grants.rows[0].anon).toBe(true);
    } finally {
      await owner.end();
    }
  });
});

describe("a create that fails halfway", () => {
  it.each(["recorded", "roles", "database", "prepared"] as const)("leaves nothing behind when it fails after %s", async (step) => {
    const before = await snapshot();
    failAt = step;
    try {
      const r = await createAs("doomed");
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ message: "Internal server error" });
    } finally {
      failAt = undefined;
    }
    expect(await snapshot()).toEqual({ ...before, started: before.started + 1 });
    expect(await tracesOf(server(), started.at(-1)!)).toEqual({ databases: [], roles: [] });
  });
});

describe("a create in progress", () => {
  it("shows the project as COMING_UP until its database is ready", async () => {
    const seen: string[] = [];
    duringCreate = async (ref) => {
      seen.push((await api(platform.baseUrl, users.alice.token, "GET", `/v1/projects/${ref}`)).body.status);
    };
    try {
      const r = await createAs("slow");
      expect(r.body.status).toBe("ACTIVE_HEALTHY");
      expect(seen).toEqual(["COMING_UP"]);
      expect((await api(platform.baseUrl, users.alice.token, "DELETE", `/v1/projects/${r.body.ref}`)).status).toBe(200);
    } finally {
      duringCreate = undefined;
    }
  });
});

describe("concurrent deletes", () => {
  it("remove the project once: the other call finds it gone", async () => {
    const ref = (await createAs("twice")).body.ref as string;
    const answers = await Promise.all([0, 1].map(() => api(platform.baseUrl, users.alice.token, "DELETE", `/v1/projects/${ref}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 403]);
    expect(await tracesOf(server(), ref)).toEqual({ databases: [], roles: [] });
  });
});

describe("the start-up reconciler", () => {
  it("removes a project a dead process left half made", async () => {
    const ref = "zzzzzzzzzzreconcile".padEnd(20, "x");
    const names = projectNames(ref);
    await adminQuery(
      platform.platformUrl,
      `insert into platform.projects (ref, organization_slug, name, region, status, server, database_name, owner_role,
         authenticator_role, authenticator_password, jwt_secret)
       values ($1, $2, 'half', 'us-east-1', 'COMING_UP', $3, $4, $5, $6, 'pw', 'secret')`,
      [ref, users.alice.slug, `${clusterInfo().host}:${clusterInfo().port}`, names.database, names.owner, names.authenticator],
    );
    const door = new ServerDoor("half", server());
    await door.roles.createProjectRoles({
      owner: names.owner,
      ownerVerifier: scramVerifier("pw"),
      authenticator: names.authenticator,
      authenticatorVerifier: scramVerifier("pw"),
      ownerConnectionLimit: 20,
    });
    await door.databases.create(names.database, names.owner, "pg_graphql_project_template", 50);
    expect((await tracesOf(server(), ref)).databases).toEqual([ref]);

    const second = await startPlatform({ platformDatabase: platform.platformDatabase });
    await second.close({ keepDatabase: true });
    expect(await tracesOf(server(), ref)).toEqual({ databases: [], roles: [] });
    expect(await adminQuery(platform.platformUrl, "select 1 from platform.projects where ref = $1", [ref])).toEqual([]);
  });
});

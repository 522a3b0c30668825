// OAuth 2.0 for third-party apps over real HTTP: an app registered for an organization, the
// consent flow (sign-in with a personal access token → session cookie, approve an organization →
// 302 with code and state), the PKCE S256 code exchange, refresh, revocation, expiry on a fake
// clock, and what is refused (wrong verifier, wrong redirect, missing scope, other organizations).
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOAuthAppCommand } from "../../server/src/management/cli/oauthAppCommand";
import { adminQuery, api, startPlatform, type TestPlatform } from "./support";

let platform: TestPlatform;
let offsetMs = 0;
let pat: string;
let slug: string;
let otherSlug: string;
let clientId: string;
let clientSecret: string;
const redirectUri = "https://app.example.com/callback";

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

function authorizeQuery(challenge: string, extra: Record<string, string> = {}): Record<string, string> {
  return { client_id: clientId, response_type: "code", redirect_uri: redirectUri, state: "st-42", code_challenge: challenge, code_challenge_method: "S256", ...extra };
}

async function send(method: string, path: string, init: { form?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
  const response = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers,
    redirect: "manual",
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // HTML pages stay text.
  }
  return { status: response.status, headers: response.headers, body };
}

/** A code approved by a scripted client (Bearer personal access token, organization in the query). */
async function scriptedCode(challenge: string, extra: Record<string, string> = {}): Promise<string> {
  const query = new URLSearchParams({ ...authorizeQuery(challenge, extra), organization_slug: slug });
  const answer = await send("GET", `/v1/oauth/authorize?${query}`, { headers: { authorization: `Bearer ${pat}` } });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get("location")!).searchParams.get("code")!;
}

function exchange(form: Record<string, string>) {
  return send("POST", "/v1/oauth/token", { form: { client_id: clientId, client_secret: clientSecret, ...form } });
}

beforeAll(async () => {
  platform = await startPlatform({ now: () => Date.now() + offsetMs });
  pat = await platform.token("oauth-owner@example.com");
  slug = (await api(platform.baseUrl, pat, "POST", "/v1/organizations", { name: "Acme" })).body.slug;
  otherSlug = (await api(platform.baseUrl, pat, "POST", "/v1/organizations", { name: "Other" })).body.slug;
  const printed = await runOAuthAppCommand(platform.platformUrl, {
    kind: "create",
    organizationSlug: slug,
    name: "Acme Deployer",
    redirectUris: [redirectUri],
    scopes: ["organizations:read", "projects:read"],
  });
  clientId = /client_id (\S+)/.exec(printed)![1]!;
  clientSecret = /client_secret (\S+)/.exec(printed)![1]!;
});
afterAll(async () => {
  await platform.close();
});

describe("OAuth 2.0", () => {
  it("registers apps only for known organizations and scopes", async () => {
    const app = { kind: "create" as const, organizationSlug: slug, name: "x", redirectUris: [redirectUri], scopes: [] as string[] };
    await expect(runOAuthAppCommand(platform.platformUrl, { ...app, scopes: ["nope:read"] })).rejects.toThrow("unknown scopes nope:read");
    await expect(runOAuthAppCommand(platform.platformUrl, { ...app, organizationSlug: "no-such-org" })).rejects.toThrow("no organization");
    expect((await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.oauth_apps"))[0].n).toBe(1);
  });

  it("runs the browser flow: sign in, consent, code, PKCE exchange, API call within scope", async () => {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams(authorizeQuery(challenge)).toString();
    const signIn = await send("GET", `/v1/oauth/authorize?${query}`);
    expect(signIn.status).toBe(200);
    expect(signIn.body).toContain("Personal access token");

    const badSignIn = await send("POST", "/v1/oauth/authorize/sign-in", { form: { authorize_query: query, access_token: `sbp_${"0".repeat(40)}` } });
    expect(badSignIn.status).toBe(401);
    expect(badSignIn.headers.get("set-cookie")).toBeNull();

    const signedIn = await send("POST", "/v1/oauth/authorize/sign-in", { form: { authorize_query: query, access_token: pat } });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie).toMatch(/^sb_oauth_session=sbs_/);

    const consent = await send("GET", signedIn.headers.get("location")!, { headers: { cookie } });
    expect(consent.status).toBe(200);
    expect(consent.body).toContain("Acme Deployer");
    expect(consent.body).toContain(slug);

    const approved = await send("POST", "/v1/oauth/authorize", { form: { ...authorizeQuery(challenge), organization_slug: slug, allowed: "true" }, headers: { cookie } });
    expect(approved.status).toBe(302);
    const location = new URL(approved.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get("state")).toBe("st-42");
    const code = location.searchParams.get("code")!;

    const token = await exchange({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirectUri });
    expect(token.status).toBe(201);
    expect(token.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "organizations:read projects:read" });
    expect(token.body.access_token).toMatch(/^sbp_oauth_[0-9a-f]{40}$/);

    const orgs = await api(platform.baseUrl, token.body.access_token, "GET", `/v1/organizations/${slug}`);
    expect(orgs.status).toBe(200);
    expect(orgs.body.name).toBe("Acme");
    // The grant is for one organization.
    expect((await api(platform.baseUrl, token.body.access_token, "GET", `/v1/organizations/${otherSlug}`)).status).toBe(403);
    const listed = await api(platform.baseUrl, token.body.access_token, "GET", "/v1/organizations");
    expect(listed.body.map((o: { id: string }) => o.id)).toEqual([slug]);
    // A code is used once.
    expect((await exchange({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirectUri })).body.error).toBe("invalid_grant");
  });

  it("refuses a denied consent with an error redirect and no code", async () => {
    const { challenge } = pkce();
    const signedIn = await send("POST", "/v1/oauth/authorize/sign-in", { form: { authorize_query: new URLSearchParams(authorizeQuery(challenge)).toString(), access_token: pat } });
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const denied = await send("POST", "/v1/oauth/authorize", { form: { ...authorizeQuery(challenge), allowed: "false" }, headers: { cookie } });
    expect(denied.status).toBe(302);
    const location = new URL(denied.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("refuses a wrong verifier, a wrong redirect URI, a missing PKCE challenge and a wrong secret", async () => {
    const { verifier, challenge } = pkce();
    const code = await scriptedCode(challenge);
    const wrongVerifier = await exchange({ grant_type: "authorization_code", code, code_verifier: pkce().verifier, redirect_uri: redirectUri });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body.error).toBe("invalid_grant");

    const code2 = await scriptedCode(challenge);
    const wrongRedirect = await exchange({ grant_type: "authorization_code", code: code2, code_verifier: verifier, redirect_uri: "https://evil.example.com/cb" });
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.body.error).toMatch(/invalid_(request|grant)/);

    const evil = await send("GET", `/v1/oauth/authorize?${new URLSearchParams(authorizeQuery(challenge, { redirect_uri: "https://evil.example.com/cb" }))}`, {
      headers: { authorization: `Bearer ${pat}` },
    });
    expect(evil.status).toBe(400);
    expect(evil.headers.get("location")).toBeNull();
    expect(evil.body).toContain("redirect_uri does not match");

    const noPkce = await send("GET", `/v1/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: "code", redirect_uri: redirectUri })}`);
    expect(noPkce.status).toBe(400);
    expect(noPkce.body).toContain("PKCE is required");

    const before = await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.oauth_tokens");
    const code3 = await scriptedCode(challenge);
    const wrongSecret = await send("POST", "/v1/oauth/token", {
      form: { client_id: clientId, client_secret: "sba_nope", grant_type: "authorization_code", code: code3, code_verifier: verifier, redirect_uri: redirectUri },
    });
    // RFC 6749 5.2: credentials sent in the body (not HTTP Basic) are refused with 400.
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.body.error).toBe("invalid_client");
    const tokens = await adminQuery(platform.platformUrl, "select count(*)::int as n from platform.oauth_tokens");
    expect(tokens[0].n).toBe(before[0].n);
  });

  it("keeps tokens within their scopes and refuses scopes the app was not given", async () => {
    const { verifier, challenge } = pkce();
    const code = await scriptedCode(challenge, { scope: "organizations:read" });
    const token = await exchange({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirectUri });
    expect(token.body.scope).toBe("organizations:read");
    const projects = await api(platform.baseUrl, token.body.access_token, "GET", "/v1/projects");
    expect(projects.status).toBe(403);
    expect(projects.body.message).toContain("projects:read");
    const write = await api(platform.baseUrl, token.body.access_token, "POST", "/v1/organizations", { name: "x" });
    expect(write.status).toBe(403);
    expect(write.body.message).toContain("personal access token");

    const query = new URLSearchParams({ ...authorizeQuery(challenge, { scope: "projects:write" }), organization_slug: slug });
    const tooMuch = await send("GET", `/v1/oauth/authorize?${query}`, { headers: { authorization: `Bearer ${pat}` } });
    expect(tooMuch.status).toBe(302);
    expect(new URL(tooMuch.headers.get("location")!).searchParams.get("error")).toBe("invalid_scope");
  });

  it("reaches the branches of its organization's projects only", async () => {
    const branchOf = async (organization: string, name: string) => {
      const project = await api(platform.baseUrl, pat, "POST", "/v1/projects", { name, organization_slug: organization, region: "us-east-1", db_pass: "oauth-pw-1" });
      expect(project.status).toBe(201);
      const branch = await api(platform.baseUrl, pat, "POST", `/v1/projects/${project.body.ref}/branches`, { branch_name: `${name}-dev` });
      expect(branch.status, JSON.stringify(branch.body)).toBe(201);
      return { parent: project.body.ref as string, branch: branch.body.project_ref as string };
    };
    const mine = await branchOf(slug, "acme-app");
    const theirs = await branchOf(otherSlug, "other-app");
    try {
      // Branches are the `environment` scope.
      const printed = await runOAuthAppCommand(platform.platformUrl, {
        kind: "create", organizationSlug: slug, name: "Acme Previews", redirectUris: [redirectUri], scopes: ["environment:read"],
      });
      const app = { client_id: /client_id (\S+)/.exec(printed)![1]!, client_secret: /client_secret (\S+)/.exec(printed)![1]! };
      const { verifier, challenge } = pkce();
      const query = new URLSearchParams({ ...authorizeQuery(challenge), client_id: app.client_id, organization_slug: slug });
      const approved = await send("GET", `/v1/oauth/authorize?${query}`, { headers: { authorization: `Bearer ${pat}` } });
      const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
      const form = { ...app, grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirectUri };
      const token = (await send("POST", "/v1/oauth/token", { form })).body.access_token as string;
      expect((await api(platform.baseUrl, token, "GET", `/v1/projects/${mine.parent}/branches`)).status).toBe(200);
      expect((await api(platform.baseUrl, token, "GET", `/v1/branches/${mine.branch}`)).status).toBe(200);
      expect((await api(platform.baseUrl, token, "GET", `/v1/projects/${theirs.parent}/branches`)).status).toBe(403);
      const other = await api(platform.baseUrl, token, "GET", `/v1/branches/${theirs.branch}`);
      expect(other.status).toBe(403);
      expect(JSON.stringify(other.body)).not.toContain("other-app");
    } finally {
      for (const ref of [mine.parent, theirs.parent]) await api(platform.baseUrl, pat, "DELETE", `/v1/projects/${ref}`);
    }
  });

  it("refreshes, expires on the clock, and revokes the app's authorization", async () => {
    const { verifier, challenge } = pkce();
    const first = (await exchange({ grant_type: "authorization_code", code: await scriptedCode(challenge), code_verifier: verifier, redirect_uri: redirectUri })).body;
    const refreshed = await exchange({ grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(201);
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    // The used refresh token and its access token are replaced.
    expect((await exchange({ grant_type: "refresh_token", refresh_token: first.refresh_token })).body.error).toBe("invalid_grant");
    expect((await api(platform.baseUrl, first.access_token, "GET", "/v1/projects")).status).toBe(401);
    expect((await api(platform.baseUrl, refreshed.body.access_token, "GET", "/v1/projects")).status).toBe(200);

    offsetMs = 3601 * 1000;
    try {
      const expired = await api(platform.baseUrl, refreshed.body.access_token, "GET", "/v1/projects");
      expect(expired.status).toBe(401);
      expect(expired.body.message).toContain("expired");
    } finally {
      offsetMs = 0;
    }

    const badRevoke = await api(platform.baseUrl, undefined, "POST", "/v1/oauth/revoke", { client_id: clientId, client_secret: "sba_nope", refresh_token: refreshed.body.refresh_token });
    expect(badRevoke.status).toBe(401);
    expect((await api(platform.baseUrl, refreshed.body.access_token, "GET", "/v1/projects")).status).toBe(200);
    const revoked = await api(platform.baseUrl, undefined, "POST", "/v1/oauth/revoke", { client_id: clientId, client_secret: clientSecret, refresh_token: refreshed.body.refresh_token });
    expect(revoked.status).toBe(204);
    expect((await api(platform.baseUrl, refreshed.body.access_token, "GET", "/v1/projects")).status).toBe(401);
    expect((await exchange({ grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token })).body.error).toBe("invalid_grant");
  });
});

// OAuth stage (Management API): the authorize request and the signed-in user's organizations →
// the HTML of the sign-in page and of the consent page (forms posting back to /v1/oauth/...).
import type { Organization } from "../tenants/organizationStore";

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function hiddenFields(params: Record<string, string>): string {
  return Object.entries(params)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join("\n");
}

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head>
<body><main><h1>${escape(title)}</h1>
${body}
</main></body></html>`;
}

export function signInPage(appName: string, authorizeQuery: string, problem?: string): string {
  return page(
    `Sign in to authorize ${appName}`,
    `${problem ? `<p role="alert">${escape(problem)}</p>` : ""}
<form method="post" action="/v1/oauth/authorize/sign-in">
<input type="hidden" name="authorize_query" value="${escape(authorizeQuery)}">
<label>Personal access token <input name="access_token" type="password" autocomplete="off"></label>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function consentPage(appName: string, scopes: string[], organizations: Organization[], params: Record<string, string>): string {
  const choices = organizations
    .map((o, i) => `<label><input type="radio" name="organization_slug" value="${escape(o.slug)}"${i === 0 ? " checked" : ""}> ${escape(o.name)}</label>`)
    .join("<br>\n");
  return page(
    `Authorize ${appName}`,
    `<p>${escape(appName)} asks for: ${scopes.map(escape).join(", ")}</p>
<form method="post" action="/v1/oauth/authorize">
${hiddenFields(params)}
<fieldset><legend>Organization</legend>
${choices || "<p>You belong to no organization yet.</p>"}
</fieldset>
<button type="submit" name="allowed" value="true">Approve</button>
<button type="submit" name="allowed" value="false">Deny</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return page("Authorization failed", `<p role="alert">${escape(message)}</p>`);
}

// CLI stage (Management API): `oauth-app create` → a registered OAuth app for an organization and
// the text to print (client id and secret; the secret is shown once and stored only as a hash).
import type { OAuthAppCommand } from "../managementConfig";
import { OAuthStore } from "../users/oauthStore";
import { knownScopes } from "../users/oauthScopes";
import { openPlatform } from "../services";

export async function runOAuthAppCommand(platformDatabaseUrl: string, command: OAuthAppCommand): Promise<string> {
  const all = knownScopes();
  const unknown = command.scopes.filter((s) => !all.includes(s));
  if (unknown.length > 0) throw new Error(`unknown scopes ${unknown.join(", ")}; known: ${all.join(", ")}`);
  const platform = await openPlatform(platformDatabaseUrl);
  try {
    const org = await platform.one("select 1 from platform.organizations where slug = $1", [command.organizationSlug]);
    if (!org) throw new Error(`no organization with slug ${command.organizationSlug}`);
    const scopes = command.scopes.length > 0 ? command.scopes : all;
    const { app, secret } = await new OAuthStore(platform).createApp(command.organizationSlug, command.name, command.redirectUris, scopes);
    return `client_id ${app.client_id}\nclient_secret ${secret}\nscopes ${scopes.join(" ")}\n`;
  } finally {
    await platform.end();
  }
}

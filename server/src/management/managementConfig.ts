// CLI stage (Management API): flags and environment → the typed settings of the platform mode,
// and the `token` subcommands. Called from the server's own config parser, which passes `fail`
// (raising its ConfigError) so this module does not import it back.
import { defaultSecretsKeyFile } from "./secrets/secretsKeyFile";
import type { TenantUrlPolicy } from "./outbound/tenantUrls";

export interface ManagementConfig {
  /** Connection string of the database that holds the platform state (created when missing). */
  platformDatabaseUrl: string;
  /** Superuser connection strings of the PostgreSQL servers that hold project databases. */
  projectServers: string[];
  /** Requests per user per calendar minute. */
  rateLimit: number;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now: () => number;
  /** Port of the database router (`<role>.<ref>` users), on the server's host; off when absent. */
  databaseRouterPort?: number;
  /** AES-256 key that encrypts project secrets at rest; without it the secrets endpoints refuse. */
  secretsKey?: Buffer;
  /** Without `secretsKey`: the file the key is read from, made with a new key when missing. */
  secretsKeyFile?: string;
  /** Database bytes a project may use: at 95% it turns read-only. Undefined: no quota. */
  diskQuotaBytes?: number;
  /** Failed authentications from one address that ban it from a project's data API; 0: never. */
  banAfterFailures?: number;
  /** Loopback addresses are never banned (the demo, where every client is this machine). */
  banExemptLoopback?: boolean;
  /** False: answered requests are not recorded in the logs (`--request-logs off`). */
  requestLogs?: boolean;
  /** Sessions each login a tenant holds the password of may open (owner role, CLI and JIT logins). */
  tenantConnectionLimit?: number;
  /** Sessions the database router passes to one project, and to all together. */
  routerProjectSessions?: number;
  routerSessions?: number;
  /** Data API connections each project server gives to every server process together; absent:
   * worked out from its max_connections (see servers/connectionLimits.ts). */
  dataApiConnections?: number;
  /** Server instances (each with its `--workers`) sharing the project servers; default 1. */
  serverInstances?: number;
  /** A data API connection idle this long is closed (ms); 0 keeps them. Default 60 s. */
  poolIdleTimeoutMs?: number;
  /** DNS TXT lookup (custom hostname verification); tests pass their own records. */
  resolveTxt?: (name: string) => Promise<string[][]>;
  /** How URLs a tenant gives are fetched (`--tenant-urls`); absent: https to public addresses only. */
  tenantUrls?: TenantUrlPolicy;
}

export type TokenCommand =
  | { kind: "create"; email: string; name: string }
  | { kind: "list"; email: string }
  | { kind: "revoke"; id: string };

export interface OAuthAppCommand {
  kind: "create";
  organizationSlug: string;
  name: string;
  redirectUris: string[];
  /** Empty: every scope the API document names. */
  scopes: string[];
}

export const managementOptions = {
  org: { type: "string" },
  "redirect-uri": { type: "string", multiple: true },
  scopes: { type: "string" },
  "platform-database-url": { type: "string" },
  "project-servers": { type: "string" },
  "rate-limit": { type: "string" },
  "ban-after-failures": { type: "string" },
  "database-router-port": { type: "string" },
  "secrets-key": { type: "string" },
  "secrets-key-file": { type: "string" },
  "disk-quota-mb": { type: "string" },
  "request-logs": { type: "string" },
  "tenant-connection-limit": { type: "string" },
  "router-project-sessions": { type: "string" },
  "router-sessions": { type: "string" },
  "tenant-urls": { type: "string" },
  "data-api-connections": { type: "string" },
  "server-instances": { type: "string" },
  "pool-idle-timeout": { type: "string" },
  email: { type: "string" },
  name: { type: "string" },
  id: { type: "string" },
} as const;

export const managementUsage = `
Management API (serves /v1 when a platform database is given):
  --platform-database-url URL  platform state, created when missing [PLATFORM_DATABASE_URL]
  --project-servers LIST       comma-separated superuser URLs of the servers holding projects,
                               default: the platform's server [PROJECT_SERVERS]
  --rate-limit N               requests per user per minute, default 60 [MGMT_RATE_LIMIT]
  --ban-after-failures N       failed authentications (within ten minutes) that ban an address
                               from a project's data API for 30 minutes, 0 for never, default 10
                               [MGMT_BAN_AFTER_FAILURES]
  --database-router-port N     route PostgreSQL connections of users <role>.<ref> to the
                               project's database on this port, default off [DATABASE_ROUTER_PORT]
  --secrets-key HEX            64 hex digits: the AES-256 key encrypting project secrets at
                               rest [SECRETS_KEY]; overrides the key file
  --secrets-key-file PATH      file holding that key, made (0600) with a new key when missing,
                               default $XDG_CONFIG_HOME/pg-graphql-server/secrets.key, else
                               ~/.config/pg-graphql-server/secrets.key [SECRETS_KEY_FILE]; keep it
                               safe and outside the database's backups: without it stored
                               secrets cannot be read
  --disk-quota-mb N            database size per project; at 95% the project turns read-only,
                               default: no quota [MGMT_DISK_QUOTA_MB]
  --request-logs on|off        record each request naming a project in its logs (edge_logs),
                               default on [MGMT_REQUEST_LOGS]
  --tenant-connection-limit N  sessions each tenant login (a project's owner role, CLI and JIT
                               logins) may hold, default 20 [MGMT_TENANT_CONNECTION_LIMIT]
  --router-project-sessions N  sessions the database router passes to one project, default 20
                               [MGMT_ROUTER_PROJECT_SESSIONS]
  --router-sessions N          sessions the database router passes in all, default 200
                               [MGMT_ROUTER_SESSIONS]
  --data-api-connections N     connections each project server gives to the projects' data
                               APIs, all server processes and instances together, default:
                               its max_connections less superusers' slots, the platform's own
                               and a tenth for tenants' sessions [MGMT_DATA_API_CONNECTIONS]
  --server-instances N         server instances (each with its --workers) sharing the project
                               servers, which split the budget above, default 1
                               [MGMT_SERVER_INSTANCES]
  --pool-idle-timeout MS       close a project's data API connection idle this long, 0 for
                               never, default 60000 [MGMT_POOL_IDLE_TIMEOUT_MS]
  --tenant-urls public|local   URLs tenants give (OIDC issuers, JWKS, SAML metadata): public
                               fetches https from public addresses only (default); local also
                               allows plain http and loopback addresses, for local development
                               and tests [MGMT_TENANT_URLS]

  token create --email E [--name N]   print a new personal access token (creates the user)
  token list --email E                list a user's tokens (never the secrets)
  token revoke --id ID                revoke a token
  oauth-app create --org SLUG --name N --redirect-uri URI [--redirect-uri URI2] [--scopes a:read,b:write]
                                      register an OAuth app; prints its client id and secret
`;

type Pick = (flag: keyof typeof managementOptions, variable: string) => string | undefined;
type PickAll = (flag: "redirect-uri") => string[];
type Fail = (message: string) => never;

/** The platform settings, or undefined when no platform database is configured. */
export function parseManagementConfig(pick: Pick, fail: Fail): ManagementConfig | undefined {
  const platformDatabaseUrl = pick("platform-database-url", "PLATFORM_DATABASE_URL");
  if (!platformDatabaseUrl) return undefined;
  const servers = (pick("project-servers", "PROJECT_SERVERS") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const rateText = pick("rate-limit", "MGMT_RATE_LIMIT") ?? "60";
  if (!/^\d+$/.test(rateText) || Number(rateText) < 1) {
    fail(`rate limit must be an integer of at least 1, got "${rateText}"`);
  }
  const routerText = pick("database-router-port", "DATABASE_ROUTER_PORT");
  if (routerText !== undefined && (!/^\d+$/.test(routerText) || Number(routerText) > 65535)) {
    fail(`database router port must be an integer from 0 to 65535, got "${routerText}"`);
  }
  const keyText = pick("secrets-key", "SECRETS_KEY");
  if (keyText !== undefined && !/^[0-9a-fA-F]{64}$/.test(keyText)) fail("secrets key must be 64 hex digits (32 bytes)");
  const keyFile = pick("secrets-key-file", "SECRETS_KEY_FILE");
  if (keyFile !== undefined && keyFile.trim() === "") fail("secrets key file must be a path");
  const banText = pick("ban-after-failures", "MGMT_BAN_AFTER_FAILURES");
  if (banText !== undefined && !/^\d+$/.test(banText)) fail(`ban after failures must be a whole number, got "${banText}"`);
  const quotaText = pick("disk-quota-mb", "MGMT_DISK_QUOTA_MB");
  if (quotaText !== undefined && (!/^\d+$/.test(quotaText) || Number(quotaText) < 1)) {
    fail(`disk quota must be a number of megabytes of at least 1, got "${quotaText}"`);
  }
  const count = (flag: "tenant-connection-limit" | "router-project-sessions" | "router-sessions" | "data-api-connections" | "server-instances", variable: string): number | undefined => {
    const text = pick(flag, variable);
    if (text !== undefined && (!/^\d+$/.test(text) || Number(text) < 1)) fail(`${flag.replace(/-/g, " ")} must be an integer of at least 1, got "${text}"`);
    return text === undefined ? undefined : Number(text);
  };
  const tenantLimit = count("tenant-connection-limit", "MGMT_TENANT_CONNECTION_LIMIT");
  const routerProject = count("router-project-sessions", "MGMT_ROUTER_PROJECT_SESSIONS");
  const routerAll = count("router-sessions", "MGMT_ROUTER_SESSIONS");
  const dataApiConnections = count("data-api-connections", "MGMT_DATA_API_CONNECTIONS");
  const serverInstances = count("server-instances", "MGMT_SERVER_INSTANCES");
  const idleText = pick("pool-idle-timeout", "MGMT_POOL_IDLE_TIMEOUT_MS");
  if (idleText !== undefined && !/^\d+$/.test(idleText)) fail(`pool idle timeout must be a whole number of milliseconds, got "${idleText}"`);
  const logsText = pick("request-logs", "MGMT_REQUEST_LOGS") ?? "on";
  if (logsText !== "on" && logsText !== "off") fail(`request logs must be on or off, got "${logsText}"`);
  const tenantUrls = pick("tenant-urls", "MGMT_TENANT_URLS") ?? "public";
  if (tenantUrls !== "public" && tenantUrls !== "local") fail(`tenant URLs must be public or local, got "${tenantUrls}"`);
  return {
    platformDatabaseUrl,
    projectServers: servers.length > 0 ? servers : [platformDatabaseUrl],
    rateLimit: Number(rateText),
    now: Date.now,
    ...(routerText !== undefined ? { databaseRouterPort: Number(routerText) } : {}),
    ...(keyText !== undefined ? { secretsKey: Buffer.from(keyText, "hex") } : { secretsKeyFile: keyFile ?? defaultSecretsKeyFile() }),
    ...(quotaText !== undefined ? { diskQuotaBytes: Number(quotaText) * 1024 * 1024 } : {}),
    ...(banText !== undefined ? { banAfterFailures: Number(banText) } : {}),
    requestLogs: logsText === "on",
    ...(tenantLimit !== undefined ? { tenantConnectionLimit: tenantLimit } : {}),
    ...(routerProject !== undefined ? { routerProjectSessions: routerProject } : {}),
    ...(routerAll !== undefined ? { routerSessions: routerAll } : {}),
    ...(dataApiConnections !== undefined ? { dataApiConnections } : {}),
    ...(serverInstances !== undefined ? { serverInstances } : {}),
    ...(idleText !== undefined ? { poolIdleTimeoutMs: Number(idleText) } : {}),
    tenantUrls: { access: tenantUrls },
  };
}

export function parseTokenCommand(positionals: string[], pick: Pick, fail: Fail): TokenCommand {
  const action = positionals[1];
  if (positionals.length > 2) fail(`unexpected argument "${positionals[2]}"`);
  const required = (flag: "email" | "id") => {
    const value = pick(flag, "");
    if (!value) return fail(`token ${action} needs --${flag}`);
    return value;
  };
  switch (action) {
    case "create":
      return { kind: "create", email: required("email"), name: pick("name", "") ?? "cli" };
    case "list":
      return { kind: "list", email: required("email") };
    case "revoke":
      return { kind: "revoke", id: required("id") };
    default:
      return fail(`unknown token command "${action ?? ""}": use create, list or revoke`);
  }
}

export function parseOAuthAppCommand(positionals: string[], pick: Pick, pickAll: PickAll, fail: Fail): OAuthAppCommand {
  const action = positionals[1];
  if (action !== "create") return fail(`unknown oauth-app command "${action ?? ""}": use create`);
  if (positionals.length > 2) fail(`unexpected argument "${positionals[2]}"`);
  const organizationSlug = pick("org", "") ?? fail("oauth-app create needs --org");
  const name = pick("name", "") ?? fail("oauth-app create needs --name");
  const redirectUris = pickAll("redirect-uri");
  if (redirectUris.length === 0) fail("oauth-app create needs --redirect-uri");
  for (const uri of redirectUris) {
    if (!URL.canParse(uri) || new URL(uri).hash !== "") fail(`redirect URI must be an absolute URL without a fragment, got "${uri}"`);
  }
  const scopes = (pick("scopes", "") ?? "").split(",").map((s) => s.trim()).filter((s) => s.length > 0);
  return { kind: "create", organizationSlug, name, redirectUris, scopes };
}

// CLI stage (Management API): the typed settings of the platform mode and the `token` and
// `oauth-app` subcommands, their flags and usage; the server's config parser reads them.
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

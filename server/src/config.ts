// CLI stage: command-line flags and environment variables → a typed server configuration, with
// the platform's settings when a platform database is given. Flags win over environment
// variables, which win over defaults.
import { parseArgs } from "node:util";
import {
  managementOptions,
  managementUsage,
  type OAuthAppCommand,
  type ManagementConfig,
  type TokenCommand,
} from "./management/managementConfig";
import { defaultSecretsKeyFile } from "./management/secrets/secretsKeyFile";
import { invariant } from "../../src/util/invariant";

export interface ServerConfig {
  databaseUrl: string;
  host: string;
  port: number;
  jwtSecret: string;
  poolSize: number;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** `*` allows any origin; otherwise the exact origins allowed to call the endpoint. */
  corsOrigins: "*" | string[];
  /** Schemas put on the search path of every request, in order. */
  schemas: string[];
  logLevel: string;
  /** Also serve the Management API (/v1) and the projects' data APIs. */
  management?: ManagementConfig;
  /** Longest a request's statement may run before it is cancelled, in ms; 0 for no limit. */
  statementTimeoutMs: number;
  limits: DocumentLimits;
  /** A JWKS file path or https URL with the public keys user tokens may be signed with. */
  jwks: string | undefined;
  /** Roles a user token may name besides anon, authenticated and service_role. */
  extraRoles: string[];
  /** Named (once-per-connection) prepared statements; off behind a transaction-mode pooler. */
  preparedStatements: boolean;
  /** Read replicas that queries go to; mutations always go to the primary. */
  replicaUrls: string[];
  /** A replica further behind the primary than this (ms) is skipped until it catches up. */
  replicaMaxLagMs: number;
  /** Processes sharing the port (Node's cluster module); 1 serves from this process. */
  workers: number;
  /** Proxies whose X-Forwarded-For names the client (Fastify's trustProxy): their addresses or
   * CIDR ranges, or the number of proxy hops; false: the peer address is the client. */
  trustProxy: false | string[] | number;
}

/** Bounds on a request's document and variables; past them the request is refused before it
 * reaches the database. */
export interface DocumentLimits {
  /** Characters of the GraphQL document. */
  maxDocumentLength: number;
  /** Nesting of selection sets, fragments included. */
  maxDepth: number;
  /** Fields (aliases included) the document selects, fragments counted where they are used. */
  maxFields: number;
  /** Nesting of objects and arrays in the variables. */
  maxVariablesDepth: number;
}

/** Serving only the Management API and the projects: no database or secret of its own. */
export type PlatformServerConfig = Omit<ServerConfig, "databaseUrl" | "jwtSecret" | "management"> & {
  management: ManagementConfig;
};

export type Command =
  | { kind: "start"; config: ServerConfig }
  | { kind: "setup"; databaseUrl: string; demo: boolean; preloadPlv8: boolean }
  | { kind: "demo"; config: Omit<ServerConfig, "databaseUrl" | "jwtSecret"> & { jwtSecret: string | undefined } }
  | { kind: "platform"; config: PlatformServerConfig }
  | { kind: "token"; platformDatabaseUrl: string; command: TokenCommand }
  | { kind: "oauth-app"; platformDatabaseUrl: string; command: OAuthAppCommand }
  | { kind: "jwt"; command: JwtCommand }
  | { kind: "help" };

/** `jwt`: a user token for trying row level security as a signed-in user. */
export interface JwtCommand {
  /** The server's own secret, or a project's key read from the platform. */
  key: { kind: "secret"; secret: string } | { kind: "project"; platformDatabaseUrl: string; ref: string };
  sub: string;
  role: string;
  expiresInSeconds: number;
}

export class ConfigError extends Error {}

function raise(message: string): never {
  throw new ConfigError(message);
}

const options = {
  "database-url": { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  "jwt-secret": { type: "string" },
  "pool-size": { type: "string" },
  "body-limit": { type: "string" },
  "cors-origins": { type: "string" },
  schemas: { type: "string" },
  "log-level": { type: "string" },
  "statement-timeout": { type: "string" },
  "max-document-length": { type: "string" },
  "max-depth": { type: "string" },
  "max-fields": { type: "string" },
  "max-variables-depth": { type: "string" },
  jwks: { type: "string" },
  "jwt-roles": { type: "string" },
  "no-prepared-statements": { type: "boolean" },
  "replica-urls": { type: "string" },
  "replica-max-lag": { type: "string" },
  workers: { type: "string" },
  "trust-proxy": { type: "string" },
  demo: { type: "boolean" },
  "preload-plv8": { type: "boolean" },
  sub: { type: "string" },
  role: { type: "string" },
  "expires-in": { type: "string" },
  project: { type: "string" },
  help: { type: "boolean", short: "h" },
  ...managementOptions,
} as const;

export const usage = `Usage: pg-graphql-server [start|setup|demo|jwt|token|oauth-app] [flags]

  start   serve POST /graphql/v1 (default)
  setup   create the API roles, auth helpers and grants (connect as a superuser);
          with --demo also load the demo schema; with --preload-plv8 also add plv8
          to shared_preload_libraries (takes effect after a restart of PostgreSQL)
  demo    start a throwaway PostgreSQL cluster with the demo schema and serve it;
          Ctrl-C stops everything and removes the cluster
  jwt     print a signed user token: --sub ID [--role R, default authenticated]
          [--expires-in SECONDS, default 3600], signed with --jwt-secret, or with
          --project REF's in-use signing key (or JWT secret) read from the platform

Flags (environment variable in brackets):
  --database-url URL    connection string [DATABASE_URL]
  --host HOST           listen address, default 127.0.0.1 [HOST]
  --port PORT           listen port, default 54321 [PORT]
  --jwt-secret SECRET   HS256 secret for API keys and user tokens, 32+ characters [JWT_SECRET]
  --pool-size N         database connections, default 10 [POOL_SIZE]
  --body-limit BYTES    largest request body, default 1048576 [BODY_LIMIT]
  --cors-origins LIST   comma-separated origins or *, default * [CORS_ORIGINS]
  --schemas LIST        comma-separated search path, default public [GRAPHQL_SCHEMAS]
  --log-level LEVEL     fatal|error|warn|info|debug, default info [LOG_LEVEL]
  --statement-timeout MS  cancel a request's statement after MS, 0 for never,
                        default 8000 [STATEMENT_TIMEOUT_MS]
  --max-document-length N  characters of a GraphQL document, default 100000 [MAX_DOCUMENT_LENGTH]
  --max-depth N         nesting of selections, default 32 [MAX_DEPTH]
  --max-fields N        fields and aliases selected, default 2000 [MAX_FIELDS]
  --max-variables-depth N  nesting of the variables' JSON, default 64 [MAX_VARIABLES_DEPTH]
  --jwks FILE|URL       JWKS with public keys for RS256/ES256/EdDSA user tokens [JWKS]
  --jwt-roles LIST      more roles user tokens may name (never a superuser) [JWT_ROLES]
  --no-prepared-statements  for a transaction-mode pooler such as pgbouncer
                        [PREPARED_STATEMENTS=off]
  --replica-urls LIST   comma-separated read replica URLs for queries [REPLICA_URLS]
  --replica-max-lag MS  skip a replica further behind than MS, default 5000 [REPLICA_MAX_LAG_MS]
  --workers N           processes sharing the port, default 1 [WORKERS]
  --trust-proxy LIST|N  behind a reverse proxy: the proxies' addresses or CIDR ranges
                        (comma-separated), or a hop count, whose X-Forwarded-For names the
                        client (network rules, bans, logs); default off [TRUST_PROXY]
${managementUsage}`;

type Env = Record<string, string | undefined>;

function integer(name: string, text: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min) {
    throw new ConfigError(`${name} must be an integer of at least ${min}, got "${text}"`);
  }
  return Number(text);
}

/** A whole number, refused with `${name} must be ${what}`. */
function whole(name: string, what: string, text: string, accept: (n: number) => boolean = () => true): number {
  if (!/^\d+$/.test(text) || !accept(Number(text))) throw new ConfigError(`${name} must be ${what}, got "${text}"`);
  return Number(text);
}

function oneOf<T extends string>(name: string, text: string, choices: readonly [T, T]): T {
  if (!(choices as readonly string[]).includes(text)) throw new ConfigError(`${name} must be ${choices[0]} or ${choices[1]}, got "${text}"`);
  return text as T;
}

/** `parse` of the text when there is one. */
function optional<T>(text: string | undefined, parse: (text: string) => T): T | undefined {
  return text === undefined ? undefined : parse(text);
}

function list(text: string): string[] {
  return text.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

export const minimumSecretLength = 32;

type Pick = (flag: keyof typeof options, variable: string) => string | undefined;

function trustProxy(text: string | undefined): false | string[] | number {
  if (text === undefined || text.trim() === "" || text.trim() === "off") return false;
  if (/^\d+$/.test(text.trim())) return integer("trust-proxy", text.trim(), 1);
  const entries = list(text);
  for (const entry of entries) {
    if (!/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(entry)) throw new ConfigError(`trust-proxy takes addresses, CIDR ranges or a hop count, got "${entry}"`);
  }
  return entries;
}

/** The settings of a server in production: timeouts, limits, token keys, pooler and replicas. */
function operations(pick: Pick, preparedStatements: string | undefined) {
  const number = (flag: keyof typeof options, variable: string, fallback: number, min: number) =>
    integer(flag, pick(flag, variable) ?? String(fallback), min);
  if (preparedStatements !== undefined) oneOf("PREPARED_STATEMENTS", preparedStatements, ["on", "off"]);
  return {
    statementTimeoutMs: number("statement-timeout", "STATEMENT_TIMEOUT_MS", 8000, 0),
    limits: {
      maxDocumentLength: number("max-document-length", "MAX_DOCUMENT_LENGTH", 100_000, 1),
      maxDepth: number("max-depth", "MAX_DEPTH", 32, 1),
      maxFields: number("max-fields", "MAX_FIELDS", 2000, 1),
      maxVariablesDepth: number("max-variables-depth", "MAX_VARIABLES_DEPTH", 64, 1),
    },
    jwks: pick("jwks", "JWKS"),
    extraRoles: list(pick("jwt-roles", "JWT_ROLES") ?? ""),
    preparedStatements: preparedStatements !== "off",
    replicaUrls: list(pick("replica-urls", "REPLICA_URLS") ?? ""),
    replicaMaxLagMs: number("replica-max-lag", "REPLICA_MAX_LAG_MS", 5000, 0),
    workers: number("workers", "WORKERS", 1, 1),
    trustProxy: trustProxy(pick("trust-proxy", "TRUST_PROXY")),
  };
}

/** Every setting but the database URL and JWT secret at its default: a base for programs and
 * tests that build a configuration themselves. */
export function defaultSettings(): Omit<ServerConfig, "databaseUrl" | "jwtSecret"> {
  const command = parseCommand(["demo"], {});
  invariant(command.kind === "demo", "the demo command parses without settings");
  const { jwtSecret: _unset, ...settings } = command.config;
  return { ...settings, logLevel: "info" };
}

export function parseCommand(argv: string[], env: Env): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  const name = positionals[0] ?? "start";
  if (positionals.length > 1 && name !== "token" && name !== "oauth-app") throw new ConfigError(`unexpected argument "${positionals[1]}"`);

  const pick: Pick = (flag, variable) => {
    const v = values[flag];
    return typeof v === "string" ? v : env[variable];
  };
  const databaseUrl = pick("database-url", "DATABASE_URL");
  const jwtSecret = pick("jwt-secret", "JWT_SECRET");
  if (jwtSecret !== undefined && jwtSecret.length < minimumSecretLength) {
    throw new ConfigError(`the JWT secret must be at least ${minimumSecretLength} characters`);
  }
  const cors = pick("cors-origins", "CORS_ORIGINS") ?? "*";
  const schemas = list(pick("schemas", "GRAPHQL_SCHEMAS") ?? "public");
  if (schemas.length === 0) throw new ConfigError("at least one schema is needed");
  const common = {
    host: pick("host", "HOST") ?? "127.0.0.1",
    port: integer("port", pick("port", "PORT") ?? "54321", 0),
    poolSize: integer("pool size", pick("pool-size", "POOL_SIZE") ?? "10", 1),
    bodyLimit: integer("body limit", pick("body-limit", "BODY_LIMIT") ?? "1048576", 1),
    corsOrigins: cors.trim() === "*" ? ("*" as const) : list(cors),
    schemas,
    logLevel: pick("log-level", "LOG_LEVEL") ?? "info",
    ...operations(pick, values["no-prepared-statements"] === true ? "off" : env.PREPARED_STATEMENTS),
  };
  const management = platformSettings(pick);

  switch (name) {
    case "start":
      if (management && !databaseUrl) return { kind: "platform", config: { ...common, management } };
      if (!databaseUrl) throw new ConfigError("a database URL is needed (--database-url or DATABASE_URL)");
      if (!jwtSecret) throw new ConfigError("a JWT secret is needed (--jwt-secret or JWT_SECRET)");
      return { kind: "start", config: { ...common, databaseUrl, jwtSecret, ...(management ? { management } : {}) } };
    case "setup":
      if (!databaseUrl) throw new ConfigError("a database URL is needed (--database-url or DATABASE_URL)");
      return { kind: "setup", databaseUrl, demo: values.demo === true, preloadPlv8: values["preload-plv8"] === true };
    case "demo":
      // Each request logged at info would scroll the demo's banner away.
      return { kind: "demo", config: { ...common, logLevel: pick("log-level", "LOG_LEVEL") ?? "warn", jwtSecret } };
    case "token":
      if (!management) throw new ConfigError("a platform database URL is needed (--platform-database-url or PLATFORM_DATABASE_URL)");
      return { kind: "token", platformDatabaseUrl: management.platformDatabaseUrl, command: tokenCommand(positionals, pick) };
    case "jwt": {
      const sub = pick("sub", "") ?? raise("jwt needs --sub (the user's id, e.g. a UUID)");
      const role = pick("role", "") ?? "authenticated";
      const expiresInSeconds = integer("expires-in", pick("expires-in", "") ?? "3600", 1);
      const ref = pick("project", "");
      if (ref !== undefined) {
        if (!management) throw new ConfigError("jwt --project needs the platform database URL (--platform-database-url or PLATFORM_DATABASE_URL)");
        return { kind: "jwt", command: { key: { kind: "project", platformDatabaseUrl: management.platformDatabaseUrl, ref }, sub, role, expiresInSeconds } };
      }
      if (!jwtSecret) throw new ConfigError("jwt needs --jwt-secret (or JWT_SECRET), or --project REF with a platform database URL");
      return { kind: "jwt", command: { key: { kind: "secret", secret: jwtSecret }, sub, role, expiresInSeconds } };
    }
    case "oauth-app": {
      if (!management) throw new ConfigError("a platform database URL is needed (--platform-database-url or PLATFORM_DATABASE_URL)");
      const pickAll = (flag: "redirect-uri") => (values[flag] as string[] | undefined) ?? [];
      return { kind: "oauth-app", platformDatabaseUrl: management.platformDatabaseUrl, command: oauthAppCommand(positionals, pick, pickAll) };
    }
    default:
      throw new ConfigError(`unknown command "${name}"`);
  }
}

/** The platform settings, or undefined when no platform database is configured. */
function platformSettings(pick: Pick): ManagementConfig | undefined {
  const platformDatabaseUrl = pick("platform-database-url", "PLATFORM_DATABASE_URL");
  if (!platformDatabaseUrl) return undefined;
  const servers = list(pick("project-servers", "PROJECT_SERVERS") ?? "");
  const rateLimit = integer("rate limit", pick("rate-limit", "MGMT_RATE_LIMIT") ?? "60", 1);
  const routerPort = optional(pick("database-router-port", "DATABASE_ROUTER_PORT"), (text) =>
    whole("database router port", "an integer from 0 to 65535", text, (n) => n <= 65535),
  );
  const keyText = pick("secrets-key", "SECRETS_KEY");
  if (keyText !== undefined && !/^[0-9a-fA-F]{64}$/.test(keyText)) throw new ConfigError("secrets key must be 64 hex digits (32 bytes)");
  const keyFile = pick("secrets-key-file", "SECRETS_KEY_FILE");
  if (keyFile !== undefined && keyFile.trim() === "") throw new ConfigError("secrets key file must be a path");
  const banAfterFailures = optional(pick("ban-after-failures", "MGMT_BAN_AFTER_FAILURES"), (text) => whole("ban after failures", "a whole number", text));
  const quotaMb = optional(pick("disk-quota-mb", "MGMT_DISK_QUOTA_MB"), (text) =>
    whole("disk quota", "a number of megabytes of at least 1", text, (n) => n >= 1),
  );
  const count = (flag: "tenant-connection-limit" | "router-project-sessions" | "router-sessions" | "data-api-connections" | "server-instances", variable: string) =>
    optional(pick(flag, variable), (text) => integer(flag.replace(/-/g, " "), text, 1));
  const tenantConnectionLimit = count("tenant-connection-limit", "MGMT_TENANT_CONNECTION_LIMIT");
  const routerProjectSessions = count("router-project-sessions", "MGMT_ROUTER_PROJECT_SESSIONS");
  const routerSessions = count("router-sessions", "MGMT_ROUTER_SESSIONS");
  const dataApiConnections = count("data-api-connections", "MGMT_DATA_API_CONNECTIONS");
  const serverInstances = count("server-instances", "MGMT_SERVER_INSTANCES");
  const poolIdleTimeoutMs = optional(pick("pool-idle-timeout", "MGMT_POOL_IDLE_TIMEOUT_MS"), (text) =>
    whole("pool idle timeout", "a whole number of milliseconds", text),
  );
  const requestLogs = oneOf("request logs", pick("request-logs", "MGMT_REQUEST_LOGS") ?? "on", ["on", "off"]);
  const tenantUrls = oneOf("tenant URLs", pick("tenant-urls", "MGMT_TENANT_URLS") ?? "public", ["public", "local"]);
  return {
    platformDatabaseUrl,
    projectServers: servers.length > 0 ? servers : [platformDatabaseUrl],
    rateLimit,
    now: Date.now,
    ...(routerPort !== undefined ? { databaseRouterPort: routerPort } : {}),
    ...(keyText !== undefined ? { secretsKey: Buffer.from(keyText, "hex") } : { secretsKeyFile: keyFile ?? defaultSecretsKeyFile() }),
    ...(quotaMb !== undefined ? { diskQuotaBytes: quotaMb * 1024 * 1024 } : {}),
    ...(banAfterFailures !== undefined ? { banAfterFailures } : {}),
    requestLogs: requestLogs === "on",
    ...(tenantConnectionLimit !== undefined ? { tenantConnectionLimit } : {}),
    ...(routerProjectSessions !== undefined ? { routerProjectSessions } : {}),
    ...(routerSessions !== undefined ? { routerSessions } : {}),
    ...(dataApiConnections !== undefined ? { dataApiConnections } : {}),
    ...(serverInstances !== undefined ? { serverInstances } : {}),
    ...(poolIdleTimeoutMs !== undefined ? { poolIdleTimeoutMs } : {}),
    tenantUrls: { access: tenantUrls },
  };
}

function tokenCommand(positionals: string[], pick: Pick): TokenCommand {
  const action = positionals[1];
  if (positionals.length > 2) throw new ConfigError(`unexpected argument "${positionals[2]}"`);
  const required = (flag: "email" | "id") => {
    const value = pick(flag, "");
    if (!value) throw new ConfigError(`token ${action} needs --${flag}`);
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
      throw new ConfigError(`unknown token command "${action ?? ""}": use create, list or revoke`);
  }
}

function oauthAppCommand(positionals: string[], pick: Pick, pickAll: (flag: "redirect-uri") => string[]): OAuthAppCommand {
  const action = positionals[1];
  if (action !== "create") throw new ConfigError(`unknown oauth-app command "${action ?? ""}": use create`);
  if (positionals.length > 2) throw new ConfigError(`unexpected argument "${positionals[2]}"`);
  const required = (flag: "org" | "name") => pick(flag, "") ?? raise(`oauth-app create needs --${flag}`);
  const organizationSlug = required("org");
  const name = required("name");
  const redirectUris = pickAll("redirect-uri");
  if (redirectUris.length === 0) throw new ConfigError("oauth-app create needs --redirect-uri");
  for (const uri of redirectUris) {
    if (!URL.canParse(uri) || new URL(uri).hash !== "") throw new ConfigError(`redirect URI must be an absolute URL without a fragment, got "${uri}"`);
  }
  const scopes = list(pick("scopes", "") ?? "");
  return { kind: "create", organizationSlug, name, redirectUris, scopes };
}

// CLI stage: command-line flags and environment variables → a typed server configuration.
// Flags win over environment variables, which win over defaults.
import { parseArgs } from "node:util";
import {
  managementOptions,
  managementUsage,
  parseManagementConfig,
  parseTokenCommand,
  type ManagementConfig,
  type TokenCommand,
} from "./management/managementConfig";

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
}

/** Serving only the Management API and the projects: no database or secret of its own. */
export type PlatformServerConfig = Omit<ServerConfig, "databaseUrl" | "jwtSecret" | "management"> & {
  management: ManagementConfig;
};

export type Command =
  | { kind: "start"; config: ServerConfig }
  | { kind: "setup"; databaseUrl: string; demo: boolean }
  | { kind: "demo"; config: Omit<ServerConfig, "databaseUrl" | "jwtSecret"> & { jwtSecret: string | undefined } }
  | { kind: "platform"; config: PlatformServerConfig }
  | { kind: "token"; platformDatabaseUrl: string; command: TokenCommand }
  | { kind: "help" };

export class ConfigError extends Error {}

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
  demo: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  ...managementOptions,
} as const;

export const usage = `Usage: pg-graphql-server [start|setup|demo|token] [flags]

  start   serve POST /graphql/v1 (default)
  setup   create the API roles, auth helpers and grants (connect as a superuser);
          with --demo also load the demo schema
  demo    start a throwaway PostgreSQL cluster with the demo schema and serve it;
          Ctrl-C stops everything and removes the cluster

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
${managementUsage}`;

type Env = Record<string, string | undefined>;

function integer(name: string, text: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min) {
    throw new ConfigError(`${name} must be an integer of at least ${min}, got "${text}"`);
  }
  return Number(text);
}

function list(text: string): string[] {
  return text.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

export const minimumSecretLength = 32;

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
  if (positionals.length > 1 && name !== "token") throw new ConfigError(`unexpected argument "${positionals[1]}"`);

  const pick = (flag: keyof typeof values, variable: string): string | undefined => {
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
  };
  const fail = (message: string): never => {
    throw new ConfigError(message);
  };
  const management = parseManagementConfig(pick, fail);

  switch (name) {
    case "start":
      if (management && !databaseUrl) return { kind: "platform", config: { ...common, management } };
      if (!databaseUrl) throw new ConfigError("a database URL is needed (--database-url or DATABASE_URL)");
      if (!jwtSecret) throw new ConfigError("a JWT secret is needed (--jwt-secret or JWT_SECRET)");
      return { kind: "start", config: { ...common, databaseUrl, jwtSecret, ...(management ? { management } : {}) } };
    case "setup":
      if (!databaseUrl) throw new ConfigError("a database URL is needed (--database-url or DATABASE_URL)");
      return { kind: "setup", databaseUrl, demo: values.demo === true };
    case "demo":
      return { kind: "demo", config: { ...common, jwtSecret } };
    case "token":
      if (!management) throw new ConfigError("a platform database URL is needed (--platform-database-url or PLATFORM_DATABASE_URL)");
      return { kind: "token", platformDatabaseUrl: management.platformDatabaseUrl, command: parseTokenCommand(positionals, pick, fail) };
    default:
      throw new ConfigError(`unknown command "${name}"`);
  }
}
